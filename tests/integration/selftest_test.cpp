// roofprof selftest --quick through the emulation backend (this VM has no PMU): W exactly
// 1.000 for every kernel, DRAM Q within 5% for the cold in-LLC sizes, verdict pass, exit 0.
#include <cmath>

#include "harness.hpp"

namespace it {
namespace {

TEST(Selftest, QuickThroughEmulationPasses) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 280s;
  auto r = sb.roofprof({"selftest", "--quick", "--backend", "emul", "--json", "st.json"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_NE(r.out.find("verdict: pass"), std::string::npos) << r.out;
  json doc = json::parse(read_text(sb.path("st.json")));
  EXPECT_EQ(doc["verdict"], "pass");
  EXPECT_EQ(doc["backends"], json::array({"emul"}));
  int cold_in_llc = 0, kernels_with_w = 0;
  for (const json& row : doc["rows"]) {
    SCOPED_TRACE(row.dump());
    EXPECT_EQ(row["ratio"]["W"]["median"], 1.0);  // exact: W = the declared flops
    EXPECT_EQ(row["ratio"]["W"]["max"], 1.0);
    ++kernels_with_w;
    if (row["size"] == "in_llc" && row["cache_state"] == "cold") {
      ++cold_in_llc;
      for (const char* q : {"Q_r", "Q_w", "Q"}) EXPECT_LE(std::fabs(row["ratio"][q]["max"].get<double>() - 1), 0.05) << q;
    }
    EXPECT_EQ(row["verdict"]["row"], "pass");
  }
  EXPECT_GE(cold_in_llc, 7);  // every kernel with memory traffic
  EXPECT_GE(kernels_with_w, 15);
}

TEST(Selftest, QuickAndFullTogetherIsBadInput) {
  Sandbox sb;
  auto r = sb.roofprof({"selftest", "--quick", "--full"});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
}

}  // namespace
}  // namespace it
