// landing_pads: the LSDA call-site tables reached through .eh_frame_hdr, on a hand-written LSDA
// (tests/fixtures/native/plan_cases.S, p_pad) and on g++'s (tests/fixtures/native/throw.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "native/landing_pads.hpp"
#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {

LoadedModule& cases() {
  static LoadedModule m(fixture_path("libnative_plan_cases.so"));
  return m;
}

TEST(LandingPads, AHandWrittenLsdasPad) {
  ASSERT_NE(cases().eh_frame_hdr(), 0u);
  const auto pads = landing_pads(cases().mapped(), cases().eh_frame_hdr());
  EXPECT_EQ(pads, std::vector<uint64_t>{cases().address("p_pad_landing")});
}

TEST(LandingPads, AsBusyAddressesTheyStartSites) {
  const uint64_t pad = cases().address("p_pad_landing"), after = cases().address("p_pad_after_call");
  // without them, the site after the call covers the pad 4 bytes in: under the jump
  const ModulePlan blind = cases().plan();
  bool covered = false;
  for (const Site& s : blind.sites) covered |= s.start == after && s.end > pad;
  EXPECT_TRUE(covered);
  const auto pads = landing_pads(cases().mapped(), cases().eh_frame_hdr());
  const ModulePlan p = plan_module(cases().code(), cases().functions(), pads, cases().data());
  bool pad_starts = false, after_refused = false;
  for (const Site& s : p.sites) pad_starts |= s.start == pad;
  for (const Uncounted& u : p.uncounted) after_refused |= u.start == after && u.why == "shorter than a jump (4 bytes)";
  EXPECT_TRUE(pad_starts);
  EXPECT_TRUE(after_refused);
}

TEST(LandingPads, GxxCatchHandlersAreInstructionsOfTheirFunctions) {
  LoadedModule m(fixture_path("libnative_throw.so"));
  const auto pads = landing_pads(m.mapped(), m.eh_frame_hdr());
  ASSERT_GE(pads.size(), 2u);  // nt_scale_catch's handler; std::to_string's cleanups
  // each is in a function and where a linear decode of it puts an instruction
  for (uint64_t pad : pads) {
    const Function* in = nullptr;
    for (const Function& f : m.functions())
      if (pad >= f.start && pad < f.start + f.size) in = &f;
    ASSERT_NE(in, nullptr) << std::hex << pad;
    const ModulePlan p = plan_module(m.code(), std::vector<Function>{*in}, std::vector<uint64_t>{pad}, m.data());
    const ModulePlan q = plan_module(m.code(), std::vector<Function>{*in}, {}, m.data());
    // a pad the decode agrees with changes nothing when it already starts a block (after a call)
    EXPECT_EQ(p.sites.size(), q.sites.size()) << in->name;
  }
  // nt_scale_catch's handler follows the call that throws, in nt_scale_catch.cold
  const Function* cold = nullptr;
  for (const Function& f : m.functions())
    if (f.name == "nt_scale_catch.cold") cold = &f;
  ASSERT_NE(cold, nullptr);
  EXPECT_TRUE(std::any_of(pads.begin(), pads.end(), [&](uint64_t a) { return a > cold->start && a < cold->start + cold->size; }));
}

TEST(LandingPads, NothingOutsideTheMappedRanges) {
  EXPECT_TRUE(landing_pads(cases().mapped(), 0x10).empty());
}

}  // namespace
}  // namespace roofprof::native::test
