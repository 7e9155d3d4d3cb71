// One region, two sites, two mechanisms, one tracker. run_split_app's static work() (in the
// executable: a breakpoint, or an entry patch) calls libsplit.so's exported work() (every call
// through the PLT: the in-process agent in the combined mode, or an entry patch) three times. `--region work` is 3 outermost
// calls whatever measures which site; the inner call is inside the instance, never a second
// one. Before one tracker per run, the combined mode counted 6 (the agent's records went to a
// tracker of their own). The same matrix runs over every mechanism, emulation included.
#include "harness.hpp"

namespace it {
namespace {

enum class Mech { Breakpoints, Agent, Combined, Patches, Emulation, EmulatedPatches, EmulatedAgent };

struct Case {
  Mech mech;
  const char* name;
  std::vector<std::string> options;
  const char* calls_source;  // sources.calls of the region
};

const Case kCases[] = {
    {Mech::Breakpoints, "Breakpoints", {"--backend", "time", "--no-preload"}, "breakpoint"},
    {Mech::Agent, "Agent", {"--backend", "time", "--no-ptrace"}, "agent"},
    {Mech::Combined, "Combined", {"--backend", "time", "--no-patch"}, "agent+breakpoint"},
    {Mech::Patches, "Patches", {"--backend", "time"}, "patch"},
    {Mech::Emulation, "Emulation", {"--backend", "emul", "--no-cache-sim", "--no-patch"}, "agent+breakpoint"},
    {Mech::EmulatedPatches, "EmulatedPatches", {"--backend", "emul", "--no-cache-sim"}, "patch"},
    {Mech::EmulatedAgent, "EmulatedAgent", {"--backend", "emul", "--no-cache-sim", "--no-ptrace"}, "agent"},
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class SplitRegion : public ::testing::TestWithParam<Case> {};

TEST_P(SplitRegion, NestedSitesOfTwoMechanismsCountOnce) {
  const Case& c = GetParam();
  Sandbox sb;
  std::vector<std::string> args{"run", "-q", "--region", "work"};
  args.insert(args.end(), c.options.begin(), c.options.end());
  args.insert(args.end(), {"--", fixture("run_split_app"), "1000"});
  auto r = sb.roofprof(args);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  bool emulated = c.mech == Mech::Emulation || c.mech == Mech::EmulatedPatches || c.mech == Mech::EmulatedAgent;
  EXPECT_EQ(r.out, emulated ? "split=5253.0\nsplit=5253.0\n" : "split=5253.0\n");  // emulation runs it twice
  json doc = load_result(r);
  EXPECT_EQ(doc["complete"], true) << doc.dump(1);
  json reg = region(doc, "work");
  EXPECT_EQ(calls(reg), 3) << reg.dump();
  EXPECT_EQ(closed_by(reg, "return"), 3) << reg.dump();
  EXPECT_EQ(reg["sources"]["calls"], c.calls_source) << reg.dump();
  if (c.mech == Mech::Emulation || c.mech == Mech::EmulatedPatches) {
    // libsplit's work(1000) at -O0: a multiply and an add per iteration; the static work()
    // adds 1.0: 2001 flops per outermost call, the inner call counted inside it.
    EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 3.0 * 2001) << reg.dump();
  }
  if (c.mech == Mech::EmulatedAgent) {
    // The agent marks the library's work() only (the static one is not called through the
    // dynamic linker): 2000 flops per call.
    EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 3.0 * 2000) << reg.dump();
  }
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, SplitRegion, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace it
