// Fault suite: `roofprof report` on bad input files: a one-line error and
// exit status 2 for every out-of-range value, device or oversized file, and region names that
// cannot drive the terminal. The inputs are the fuzz seed corpus (tests/fuzz/corpus).
#include <chrono>

#include "harness.hpp"

namespace it {
namespace {

std::string corpus(const std::string& name) { return source_path("tests/fuzz/corpus/" + name); }

void expect_rejected(const RunResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.diag();
}

TEST(FaultLoader, OutOfRangeValuesInAResult) {
  Sandbox sb;
  expect_rejected(sb.roofprof({"report", corpus("result-overflow-double.json")}), "not a valid result");
  expect_rejected(sb.roofprof({"report", corpus("result-negative-time.json")}), "regions[0].time_s: expected 0 or more");
  expect_rejected(sb.roofprof({"report", corpus("result-negative-flops.json")}), "regions[0].flops: expected 0 or more");
  expect_rejected(sb.roofprof({"report", corpus("result-term-signal-999.json")}), "term_signal: expected an integer from 1 to 64");
  expect_rejected(sb.roofprof({"report", corpus("result-unknown-backend.json")}), "backend: unknown value \"quantum\"");
}

TEST(FaultLoader, DevicesDirectoriesAndHugeFiles) {
  Sandbox sb;
  auto r = sb.roofprof({"report", "/dev/zero"}, RunOptions{.timeout = 20s});
  expect_rejected(r, "not a text file");
  EXPECT_LT(r.status.elapsed_s, 10) << r.diag();
  expect_rejected(sb.roofprof({"report", corpus("result-kernels.json"), "--ceilings", sb.work().string()}),
                  "is a directory");
  expect_rejected(sb.roofprof({"report", corpus("result-kernels.json"), "--ceilings", "/dev/zero"}),
                  "not a ceilings file");
  expect_rejected(sb.roofprof({"report", corpus("result-kernels.json"), "--ceilings", corpus("ceilings-negative.json")}),
                  "out of range");
  expect_rejected(sb.roofprof({"report", corpus("result-kernels.json"), "--ceilings", corpus("ceilings-overflow.json")}),
                  "ceilings");
}

TEST(FaultLoader, RegionNamesCannotDriveTheTerminal) {
  Sandbox sb;
  auto r = sb.roofprof({"report", corpus("result-escape-name.json")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\xc2\x9b"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1b[2J"), std::string::npos) << r.out;
}

// A 100,000-character region name is reported in well under a second of work (it took 30 s).
TEST(FaultLoader, HundredThousandCharacterName) {
  Sandbox sb;
  std::string text = read_text(corpus("result-kernels.json"));
  json doc = json::parse(text);
  doc["regions"][0]["name"] = std::string(100000, 'n');
  write_text(sb.path("long.json"), doc.dump());
  auto r = sb.roofprof({"report", "long.json"}, RunOptions{.timeout = 60s});
  ASSERT_EQ(r.exit_code(), 0) << r.diag().substr(0, 2000);
  EXPECT_LT(r.status.elapsed_s, 5) << "report took " << r.status.elapsed_s << " s";
}

}  // namespace
}  // namespace it
