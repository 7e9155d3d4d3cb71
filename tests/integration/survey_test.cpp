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
  // 6:3:1 with K = 60: 0.12 s on an Intel Xeon VM, 0.5 s on the development VM. At 10 kHz that
  // is 1200 samples or more, kernel_small's tenth enough for it to be sampled and ranked below
  // kernel_mid even on a host several times faster (at 1 kHz it could get none).
  auto r = sb.roofprof({"survey", "--rate", "10000", "-o", "s.json", "--", fixture("run_three_kernels"), "60"});
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

// Only sampled functions are emulated: K = 20 gives kernel_small 2 million iterations of a
// dependent add (4 ms on an Intel Xeon VM: 40 samples at 10 kHz; K = 1 gave it 2), so that it
// is sampled on a host several times faster too.
TEST(Survey, EmulatedGivesExactWork) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "--backend", "emul", "-q", "--no-cache-sim", "-o", "s.json", "--",
                        fixture("run_three_kernels"), "20"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  auto by = functions_of(doc);
  const std::pair<const char*, double> expected[] = {
      {"kernel_big", 20 * 1.2e6}, {"kernel_mid", 20 * 6e5}, {"kernel_small", 20 * 2e5}};
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
  EXPECT_GE(doc["regions"][by["main"]["region"].get<size_t>()]["flops"].get<double>(), 20 * 2e6);
  EXPECT_LT(by["main"]["self_flops"].get<double>(), 10);
}

// A kernel chosen by CPUID: natively kernel_ZEN on an AMD CPU, under valgrind (whose CPUID
// shows an Intel CPU) kernel_HASWELL. Whichever the native run sampled, the emulated run's W
// lands on the one that ran, listed as a variant of the sampled one when they differ.
TEST(Survey, EmulatedWorkOfTheKernelVariantTheCpuChose) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "--backend", "emul", "-q", "--no-cache-sim", "-o", "s.json", "--",
                        fixture("run_dispatch"), "3"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  const auto& top = doc["survey"]["functions"][0];
  EXPECT_EQ(top["name"], "kernel_HASWELL") << r.diag();
  EXPECT_EQ(top["self_flops"].get<double>(), 6e6) << r.diag();
  ASSERT_FALSE(top["region"].is_null());
  EXPECT_EQ(doc["regions"][top["region"].get<size_t>()]["flops"].get<double>(), 6e6);
  auto by = functions_of(doc);
  __builtin_cpu_init();
  if (__builtin_cpu_is("amd")) {  // sampled natively: kernel_ZEN, never run under valgrind
    ASSERT_TRUE(top.contains("variant_of")) << r.diag();
    EXPECT_EQ(top["variant_of"], "kernel_ZEN");
    EXPECT_EQ(top["self_samples"].get<double>(), 0);
    EXPECT_NE(r.out.find("kernel_HASWELL [variant of kernel_ZEN]"), std::string::npos) << r.diag();
    // The sampled one right after it: where the time was, next to where the work was.
    EXPECT_EQ(doc["survey"]["functions"][1]["name"], "kernel_ZEN") << r.out;
    ASSERT_TRUE(by.count("kernel_ZEN")) << r.diag();
    EXPECT_GT(by["kernel_ZEN"]["self_samples"].get<double>(), 0);
    EXPECT_TRUE(by["kernel_ZEN"]["self_flops"].is_null()) << "not reached under emulation: nothing measured";
  } else {
    EXPECT_FALSE(top.contains("variant_of")) << r.diag();
  }
}

// Most users are not root: where perf_event_paranoid is 2 they may sample their program's user
// space only, which is where its kernels are.
TEST(Survey, AsAnOrdinaryUser) {
  Sandbox sb;
  RunOptions ro;
  ro.unprivileged = true;
  auto r = sb.roofprof({"survey", "--backend", "emul", "--no-cache-sim", "-o", "s.json", "--",
                        fixture("run_three_kernels"), "20"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  const auto& fs = doc["survey"]["functions"];
  ASSERT_GE(fs.size(), 3u) << r.diag();
  EXPECT_EQ(fs[0]["name"], "kernel_big") << r.diag();
  EXPECT_EQ(fs[0]["self_flops"].get<double>(), 20 * 1.2e6) << r.diag();
  auto by = functions_of(doc);
  EXPECT_GT(by["kernel_big"]["self_samples"].get<double>(), by["kernel_mid"]["self_samples"].get<double>());
  if (::geteuid() == 0 && read_text("/proc/sys/kernel/perf_event_paranoid").rfind("2", 0) == 0) {
    EXPECT_NE(r.err.find("the kernel's part of the run was not sampled"), std::string::npos) << r.diag();
  }
}

// A numpy matmul surveyed as a numpy user types it, as an ordinary user: the top function by W is
// OpenBLAS's dgemm kernel (under valgrind the variant OpenBLAS chooses for the Intel CPU valgrind
// shows, listed for the one sampled natively), with W = 2n^3 within 1% (OpenBLAS also scales C).
TEST(Survey, NumpyMatmulTopFunctionIsTheOpenBlasKernel) {
  if (!fs::exists("/usr/lib/python3/dist-packages/numpy")) GTEST_SKIP() << "python3-numpy is not installed";
  Sandbox sb;
  RunOptions ro;
  ro.unprivileged = true;
  ro.timeout = 300s;
  auto r = sb.roofprof({"survey", "--backend", "emul", "-o", "s.json", "--", "/usr/bin/python3", "-c",
                        "import numpy as np; a=np.ones((300,300)); a@a"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  const auto& top = doc["survey"]["functions"][0];
  EXPECT_EQ(top["name"].get<std::string>().rfind("dgemm_kernel_", 0), 0u) << r.out;
  EXPECT_NE(top["module"].get<std::string>().find("openblas"), std::string::npos) << r.out;
  const double n = 300, w = top["self_flops"].get<double>();
  EXPECT_NEAR(w, 2 * n * n * n, 0.01 * 2 * n * n * n) << r.out;
  ASSERT_FALSE(top["region"].is_null());
  const json& reg = doc["regions"][top["region"].get<size_t>()];
  EXPECT_GT(reg["bytes"]["L1"]["read"].get<double>(), 0) << "cache simulation on: Q measured";
}

// -O2 inlines scale_add into main's loop (no out-of-line copy): its samples are its own (DWARF's
// inlined copies), main holds them in its total only; under emulation its copies are a region
// with exact W, 2n per call, 10 calls; main's own W is the 10 adds of `0.5 + r`.
// Sampled: 10^9 updates of y[i] in scale_add (two arrays of 80 KB, in the caches of any host,
// 40 pages faulted in once) against main's own 10^4 stores and 10^5 turns of its loop, so that
// whatever the host's speed and caches scale_add has thousands of times main's own work
// (0.45 s on an Intel Xeon VM: 450 samples at 1 kHz). With n = 3,000,000 and 10 calls (48 MB,
// page faults in main's first touch of x), main's share depended on the host.
TEST(Survey, InlinedFunctionIsItsOwnRow) {
  Sandbox sb;
  RunOptions ro;
  ro.timeout = 120s;
  auto r = sb.roofprof({"survey", "-q", "-o", "s.json", "--", fixture("real_inlined"), "10000", "100000"}, ro);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  auto by = functions_of(load_result(r, "s.json"));
  ASSERT_TRUE(by.count("scale_add") && by.count("main")) << r.out;
  EXPECT_EQ(by["scale_add"]["probe"], "inlined");
  EXPECT_TRUE(by["scale_add"]["address"].is_null());
  EXPECT_GT(by["scale_add"]["self_samples"].get<double>(), 4 * by["main"]["self_samples"].get<double>()) << r.out;
  EXPECT_GE(by["main"]["total_samples"].get<double>(), by["scale_add"]["self_samples"].get<double>()) << r.out;

  auto e = sb.roofprof({"survey", "--backend", "emul", "-q", "--no-cache-sim", "-o", "e.json", "--",
                        fixture("real_inlined"), "300000"});
  ASSERT_EQ(e.exit_code(), 0) << e.diag();
  json doc = load_result(e, "e.json");
  by = functions_of(doc);
  ASSERT_TRUE(by.count("scale_add") && by.count("main")) << e.out;
  EXPECT_EQ(by["scale_add"]["self_flops"].get<double>(), 2 * 300000 * 10);
  EXPECT_EQ(doc["regions"][by["scale_add"]["region"].get<size_t>()]["calls"].get<double>(), 10);
  EXPECT_EQ(by["main"]["self_flops"].get<double>(), 10);
  EXPECT_EQ(doc["survey"]["functions"][0]["name"], "scale_add");
}

// --cache-geometry: the emulated run simulates the hierarchy given, recorded level by level;
// without an emulated run the option is bad input in one line.
TEST(Survey, EmulatedCachesAreTheGeometryGiven) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "--backend", "emul", "-q", "--cache-geometry", "L1=32K:8:64,L2=256K:4:64,L3=2M:16:64",
                        "-o", "s.json", "--", fixture("run_three_kernels"), "20"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  const json expected = json::parse(R"([
    {"name": "L1", "size": 32768, "ways": 8, "line": 64, "inclusive": null},
    {"name": "L2", "size": 262144, "ways": 4, "line": 64, "inclusive": true},
    {"name": "L3", "size": 2097152, "ways": 16, "line": 64, "inclusive": true}])");
  EXPECT_EQ(doc["simulated_caches"], expected) << doc["simulated_caches"].dump();
  auto by = functions_of(doc);
  ASSERT_TRUE(by.count("kernel_big")) << r.diag();
  EXPECT_EQ(by["kernel_big"]["self_flops"].get<double>(), 20 * 1.2e6);
  auto bad = sb.roofprof({"survey", "--cache-geometry", "L1=32K:8:64", "--", fixture("run_three_kernels")});
  EXPECT_EQ(bad.exit_code(), 2) << bad.diag();
  EXPECT_EQ(lines(bad.err).size(), 1u) << bad.diag();
}

TEST(Survey, RegionsFromASurveyFile) {
  Sandbox sb;
  auto s = sb.roofprof({"survey", "-n", "3", "-o", "s.json", "--", fixture("run_three_kernels"), "20"});
  ASSERT_EQ(s.exit_code(), 0) << s.diag();
  auto r = sb.roofprof({"run", "--regions-from", "s.json", "--", fixture("run_three_kernels")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  std::set<std::string> names, surveyed;
  for (const auto& reg : doc["regions"]) names.insert(reg["name"].get<std::string>());
  // The survey's functions, less its pseudo-functions ("[kernel]": time in the kernel, which
  // a loaded machine may put among the top 3), are the regions.
  const json survey = load_result(s, "s.json");
  for (const auto& f : survey["survey"]["functions"])
    if (f["name"].get<std::string>().rfind("[", 0) != 0) surveyed.insert(f["name"].get<std::string>());
  EXPECT_TRUE(names.count("kernel_big")) << r.diag();
  EXPECT_GE(names.size(), 2u) << r.diag();
  EXPECT_EQ(names, surveyed) << r.diag();
}

// An emulated survey of a C++ template program (tail calls, a recursive template, an
// exception through two templates) never writes a negative self value, and the file it writes
// is one roofprof reads: `report` and `run --regions-from` take it.
TEST(Survey, EmulatedTemplateProgramHasNoNegativeSelfAndReadsBack) {
  Sandbox sb;
  RunOptions slow;
  slow.timeout = 300s;  // one sampled and one emulated run of a few ms of native work
  auto s = sb.roofprof({"survey", "--backend", "emul", "-q", "--no-cache-sim", "-o", "sv.json", "--", fixture("run_templates"), "4"},
                       slow);
  ASSERT_EQ(s.exit_code(), 0) << s.diag();
  json doc = load_result(s, "sv.json");
  size_t emulated = 0;
  for (const auto& f : doc["survey"]["functions"]) {
    SCOPED_TRACE(f["name"].get<std::string>());
    for (const char* key : {"self_flops", "self_instructions"}) {
      if (!f[key].is_null()) { EXPECT_GE(f[key].get<double>(), 0) << key; }
    }
    for (const auto& [level, b] : f["self_bytes"].items())
      for (const char* rw : {"read", "write"}) {
        if (!b[rw].is_null()) { EXPECT_GE(b[rw].get<double>(), 0) << level << " " << rw; }
      }
    emulated += !f["self_flops"].is_null();
  }
  EXPECT_GE(emulated, 2u) << s.diag();
  auto by = functions_of(doc);
  bool templated = false;
  // An instance of a template by its demangled name (reduce<double, ...> takes most of the time; the
  // smaller dot<double> was not sampled in every run of a few ms).
  for (const auto& [name, f] : by) templated = templated || name.find("<double") != std::string::npos;
  EXPECT_TRUE(templated) << "no instance of a double template among the surveyed functions\n" << s.out;
  auto rep = sb.roofprof({"report", "--no-plot", "sv.json"});
  EXPECT_EQ(rep.exit_code(), 0) << rep.diag();
  auto run = sb.roofprof({"run", "-q", "--regions-from", "sv.json", "--", fixture("run_templates"), "1"}, slow);
  EXPECT_EQ(run.exit_code(), 0) << run.diag();
}

// A function's total samples in `by` (functions_of); 0 when the survey has no such row.
double survey_total_of(const std::map<std::string, json>& by, const std::string& name) {
  auto it = by.find(name);
  return it == by.end() ? 0 : it->second["total_samples"].get<double>();
}

// -O2 -fomit-frame-pointer: no function keeps a frame pointer, so the kernel's walk skips every
// caller of `work` (level3, level2, level1, main). Each sample's copied stack unwound with DWARF
// CFI gives them back: every caller's total holds its callee's, with no warning. With --unwind fp
// (the kernel's walk only) the same program's callers have almost nothing, and the survey says so.
TEST(Survey, TotalIsInclusiveWithoutFramePointersThroughCfi) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "--rate", "10000", "-o", "s.json", "--", fixture("run_deep_O2"), "4000000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  auto by = functions_of(doc);
  ASSERT_EQ(doc["survey"]["functions"][0]["name"], "work") << r.diag();
  EXPECT_GE(survey_total_of(by, "work"), by["work"]["self_samples"].get<double>());
  const char* chain[] = {"work", "level3", "level2", "level1", "main"};
  for (size_t i = 1; i < std::size(chain); ++i)
    EXPECT_GE(survey_total_of(by, chain[i]), 0.9 * survey_total_of(by, chain[i - 1]))
        << chain[i] << " calls " << chain[i - 1] << "\n" << r.out;
  EXPECT_EQ(doc["warnings"].dump().find("total is not inclusive"), std::string::npos) << doc["warnings"];

  auto fp = sb.roofprof({"survey", "--unwind", "fp", "--rate", "10000", "-o", "f.json", "--", fixture("run_deep_O2"),
                         "4000000"});
  ASSERT_EQ(fp.exit_code(), 0) << fp.diag();
  json fdoc = load_result(fp, "f.json");
  auto fby = functions_of(fdoc);
  EXPECT_LT(survey_total_of(fby, "level1"), 0.5 * survey_total_of(fby, "work")) << fp.out;
  EXPECT_NE(fdoc["warnings"].dump().find("were not unwound with DWARF CFI (--unwind fp)"), std::string::npos)
      << fdoc["warnings"];
}

// Built without unwind tables too (-fno-asynchronous-unwind-tables): `work` keeps no frame pointer
// and has no FDE, so neither CFI nor the kernel's walk finds its callers: the survey says its total
// is not inclusive there, naming `work`. The -O0 kernels keep theirs and are never named.
TEST(Survey, SaysTotalIsNotInclusiveWithoutFramePointers) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "--rate", "10000", "-o", "s.json", "--", fixture("run_deep_O2_notables"), "4000000"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  ASSERT_EQ(doc["survey"]["functions"][0]["name"], "work") << r.diag();
  const std::string note = "total is not inclusive where code keeps no frame pointer: ";
  EXPECT_NE(doc["warnings"].dump().find(note), std::string::npos) << doc["warnings"];
  EXPECT_NE(doc["warnings"].dump().find("(gcc's default from -O1; most in work"), std::string::npos) << doc["warnings"];
  EXPECT_NE(doc["warnings"].dump().find("could not be unwound with DWARF CFI"), std::string::npos) << doc["warnings"];
  EXPECT_NE(r.err.find("roofprof: warning: " + note), std::string::npos) << r.diag();
  EXPECT_LT(survey_total_of(functions_of(doc), "level1"), 0.5 * survey_total_of(functions_of(doc), "work")) << r.out;

  auto kept = sb.roofprof({"survey", "--rate", "10000", "-o", "k.json", "--", fixture("run_three_kernels"), "20"});
  ASSERT_EQ(kept.exit_code(), 0) << kept.diag();
  EXPECT_EQ(load_result(kept, "k.json")["warnings"].dump().find("kernel_"), std::string::npos) << kept.diag();
}

// A stripped library's internal function has no name: its row is "[unknown in libhiddenwork.so]",
// and a note names the exported function it was reached through (unwound by CFI through the
// nameless frame), on which a region measures it. Its total counts the unknown code too.
TEST(Survey, UnknownCodeOfAStrippedLibrarySaysWhichFunctionReachedIt) {
  Sandbox sb;
  auto r = sb.roofprof({"survey", "-o", "s.json", "--", fixture("run_hiddenwork_app"), "300"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r, "s.json");
  ASSERT_EQ(doc["survey"]["functions"][0]["name"], "[unknown in libhiddenwork.so]") << r.diag();
  const std::string note = "[unknown in libhiddenwork.so] was reached through hidden_entry (";
  EXPECT_NE(doc["warnings"].dump().find(note), std::string::npos) << doc["warnings"];
  EXPECT_NE(r.err.find("roofprof: warning: " + note), std::string::npos) << r.diag();
  EXPECT_NE(doc["warnings"].dump().find("only its one exported function has a name"), std::string::npos)
      << doc["warnings"];
  const auto by = functions_of(doc);
  EXPECT_GE(survey_total_of(by, "hidden_entry"), 0.9 * double(doc["survey"]["functions"][0]["self_samples"]))
      << doc["survey"].dump(1);
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
