// roofprof survey: hot functions by sampled time and, under emulation, their exact W.
#include <set>

#include "harness.hpp"

namespace it {
namespace {

// The survey's functions by name.
std::map<std::string, json> functions_of(const json& doc) {
  std::map<std::string, json> out;
  for (const auto& f : doc["survey"]["functions"]) out[f["name"].get<std::string>()] = f;
  return out;
}

TEST(Survey, RanksThreeKernelsByTime) {
  Sandbox sb;
  // 6:3:1 with K = 60: about 0.5 s on the development VM, 500 samples at 1 kHz.
  auto r = sb.roofprof({"survey", "-o", "s.json", "--", fixture("run_three_kernels"), "60"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  const auto& fs = doc["survey"]["functions"];
  ASSERT_GE(fs.size(), 3u) << r.diag();
  EXPECT_EQ(fs[0]["name"], "kernel_big") << r.diag();
  EXPECT_EQ(fs[1]["name"], "kernel_mid") << r.diag();
  EXPECT_EQ(fs[2]["name"], "kernel_small") << r.diag();
  EXPECT_NE(fs[0]["source"].get<std::string>().find("three_kernels.c:"), std::string::npos);
  EXPECT_EQ(fs[0]["probe"], "patch");
  EXPECT_TRUE(fs[0]["self_flops"].is_null()) << "W printed without an emulated run";
  // main holds every kernel: its total (frame-pointer call chains) is most of the run.
  auto by = functions_of(doc);
  ASSERT_TRUE(by.count("main"));
  EXPECT_GT(by["main"]["total_samples"].get<double>(), 0.9 * by["kernel_big"]["total_samples"].get<double>() +
                                                           by["kernel_mid"]["total_samples"].get<double>());
  EXPECT_NE(r.out.find("kernel_big"), std::string::npos) << r.diag();
}

TEST(Survey, EmulatedGivesExactWork) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "--backend", "emul", "-q", "--no-cache-sim", "-o", "s.json", "--",
                        fixture("run_three_kernels")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  auto by = functions_of(doc);
  const std::pair<const char*, double> expected[] = {
      {"kernel_big", 1.2e6}, {"kernel_mid", 6e5}, {"kernel_small", 2e5}};
  for (const auto& [name, w] : expected) {
    ASSERT_TRUE(by.count(name)) << name << "\n" << r.diag();
    EXPECT_EQ(by[name]["self_flops"].get<double>(), w) << name;
    ASSERT_FALSE(by[name]["region"].is_null()) << name;
    EXPECT_EQ(doc["regions"][by[name]["region"].get<size_t>()]["flops"].get<double>(), w) << name;
  }
  // Ordered by exact self W under emulation.
  EXPECT_EQ(doc["survey"]["functions"][0]["name"], "kernel_big");
  // main: the three kernels inclusive, almost nothing of its own.
  ASSERT_TRUE(by.count("main"));
  EXPECT_GE(doc["regions"][by["main"]["region"].get<size_t>()]["flops"].get<double>(), 2e6);
  EXPECT_LT(by["main"]["self_flops"].get<double>(), 10);
}

TEST(Survey, RegionsFromASurveyFile) {
  Sandbox sb;
  auto s = sb.roofprof({"survey", "-n", "3", "-o", "s.json", "--", fixture("run_three_kernels"), "20"});
  ASSERT_EQ(s.exit_code(), 0) << s.diag();
  auto r = sb.roofprof({"run", "--regions-from", "s.json", "--", fixture("run_three_kernels")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  std::set<std::string> names;
  for (const auto& reg : doc["regions"]) names.insert(reg["name"].get<std::string>());
  EXPECT_TRUE(names.count("kernel_big")) << r.diag();
  EXPECT_EQ(doc["regions"].size(), 3u) << r.diag();
}

TEST(Survey, BadInput) {
  Sandbox sb;
  EXPECT_EQ(sb.roofprof({"survey"}).exit_code(), 2);
  EXPECT_EQ(sb.roofprof({"survey", "--sort", "work", "--", fixture("run_three_kernels")}).exit_code(), 2);
  write_text(sb.path("r.json"), "{}");
  auto r = sb.roofprof({"run", "--regions-from", "r.json", "--", fixture("run_three_kernels")});
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
}

}  // namespace
}  // namespace it
