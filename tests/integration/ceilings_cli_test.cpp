// roofprof ceilings as a user runs it: the progress line on a terminal (none otherwise), and the
// measured hierarchy in the file (the caches its sweep found, which emulated runs then simulate).
#include <algorithm>

#include "harness.hpp"

namespace it {
namespace {

// One small measurement: scalar compute on one thread, samples of 1 ms.
const std::vector<std::string> kTinyCompute = {"ceilings", "--only", "compute", "--isa", "scalar",
                                               "--threads", "1", "--sample-ms", "1", "--samples", "1"};

// On a terminal (script(1) gives the command a pseudo-terminal), one status line rewritten in
// place ("\r\033[K" before each step, cleared before the table); with stderr not a terminal,
// nothing but the table.
TEST(CeilingsCli, ProgressLineOnlyOnATerminal) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 120s;
  std::string cmd = roofprof_bin();
  for (const auto& a : kTinyCompute) cmd += " " + a;
  auto tty = sb.run({"/usr/bin/script", "-q", "-e", "-c", cmd, "/dev/null"}, ro);
  ASSERT_EQ(tty.exit_code(), 0) << tty.diag();
  EXPECT_NE(tty.out.find("\r\033[Kroofprof: measuring compute scalar dp add_mul, 1 thread"), std::string::npos)
      << tty.diag();
  // The last erase clears the status line; the table follows it.
  const size_t last = tty.out.rfind("\r\033[K");
  ASSERT_NE(last, std::string::npos) << tty.diag();
  EXPECT_NE(tty.out.compare(last + 4, 19, "roofprof: measuring"), 0) << "not cleared: " << tty.diag();
  EXPECT_NE(tty.out.find("scalar dp add_mul", last), std::string::npos) << tty.diag();

  auto plain = sb.roofprof(kTinyCompute, ro);
  ASSERT_EQ(plain.exit_code(), 0) << plain.diag();
  EXPECT_EQ(plain.err.find("measuring"), std::string::npos) << plain.diag();
  EXPECT_EQ(plain.err.find('\r'), std::string::npos) << plain.diag();
  EXPECT_NE(plain.out.find("scalar dp add_mul"), std::string::npos) << plain.diag();
}

// Bandwidth (or latency) measures the hierarchy first: one measured_caches entry per reported
// level, "hierarchy" among the parts, and the table's caches line says what was measured.
// Compute alone does not.
TEST(CeilingsCli, BandwidthMeasuresTheHierarchyFirst) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 300s;
  auto r = sb.roofprof({"ceilings", "--only", "bandwidth", "--levels", "L1", "--threads", "1", "--sample-ms", "1",
                        "--samples", "1", "-o", "c.json"},
                       ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  const json c = json::parse(read_text(sb.path("c.json")));
  ASSERT_EQ(c["measured_caches"].size(), c["caches"].size()) << c.dump();
  for (size_t i = 0; i < c["caches"].size(); ++i) {
    EXPECT_EQ(c["measured_caches"][i]["level"], c["caches"][i]["level"]);
    const json& e = c["measured_caches"][i]["effective_bytes"];
    EXPECT_TRUE(e.is_null() || e.get<double>() > 0) << e.dump();
  }
  const auto& parts = c["method"]["parts"];
  EXPECT_NE(std::find(parts.begin(), parts.end(), "hierarchy"), parts.end()) << parts.dump();
  EXPECT_NE(r.out.find("caches: L1 "), std::string::npos) << r.diag();
  EXPECT_NE(r.out.find("measured: one thread's load-bandwidth knee"), std::string::npos) << r.diag();

  auto compute = sb.roofprof({"ceilings", "--only", "compute", "--isa", "scalar", "--threads", "1", "--sample-ms", "1",
                              "--samples", "1", "-o", "-"},
                             ro);
  ASSERT_EQ(compute.exit_code(), 0) << compute.diag();
  EXPECT_TRUE(json::parse(compute.out)["measured_caches"].empty()) << compute.out;
}

}  // namespace
}  // namespace it
