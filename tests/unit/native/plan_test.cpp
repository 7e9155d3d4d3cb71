// plan_module on hand-written functions (tests/fixtures/native/plan_cases.S) whose sites, counts
// and refusals are known exactly, and on compiled fixtures (jump tables, exceptions).
#include <gtest/gtest.h>

#include <algorithm>

#include "native/counting.hpp"
#include "native/decode.hpp"
#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {

const ModulePlan& cases_plan() {
  static const ModulePlan p = plan_cases().plan();
  return p;
}

const Site* site_or_null(const ModulePlan& p, uint64_t a) {
  for (const Site& s : p.sites)
    if (s.start == a) return &s;
  return nullptr;
}
const Uncounted* uncounted_at(const ModulePlan& p, uint64_t a) {
  for (const Uncounted& u : p.uncounted)
    if (u.start == a) return &u;
  return nullptr;
}
std::array<uint64_t, RP_NATIVE_SLOTS> counts(std::initializer_list<std::pair<rp_native_slot, uint64_t>> nonzero) {
  std::array<uint64_t, RP_NATIVE_SLOTS> c{};
  for (auto [slot, n] : nonzero) c[slot] = n;
  return c;
}

TEST(PlanModule, ATightLoopIsOneSiteWithDeadFlags) {
  const uint64_t body = plan_cases().address("p_loop_body");
  const Site* s = site_or_null(cases_plan(), body);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->end, body + 15);  // addsd (5) add (4) cmp (3) jne (2), and the ret it falls into
  ASSERT_EQ(s->segments.size(), 2u);
  EXPECT_EQ(s->segments[1].start, body + 14);
  EXPECT_EQ(s->segments[1].counts, counts({}));
  EXPECT_EQ(s->counts, counts({{RP_NATIVE_DP_SCALAR, 1}}));
  EXPECT_EQ(s->fp_insns, 1u);
  EXPECT_EQ(s->masked, 0u);
  EXPECT_FALSE(s->flags_saved);
  // the entry's xor and pxor have no flops: not a site
  EXPECT_EQ(site_or_null(cases_plan(), plan_cases().address("p_loop")), nullptr);
}

TEST(PlanModule, FlagsReadInsideASiteBeforeAnyWriteAreSaved) {
  const Site* s = site_or_null(cases_plan(), plan_cases().address("p_flags_live_site"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->counts, counts({{RP_NATIVE_DP_SCALAR, 3}}));
  EXPECT_TRUE(s->flags_saved);
}

TEST(PlanModule, AJccStartsASegmentNotASite) {
  const uint64_t fall = plan_cases().address("p_flags_live_fall");
  const Site* s = site_or_null(cases_plan(), plan_cases().address("p_flags_live_site"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->end, fall + 4);  // up to the jb's target
  ASSERT_EQ(s->segments.size(), 2u);
  EXPECT_EQ(s->segments[0].start, s->start);
  EXPECT_EQ(s->segments[0].counts, counts({{RP_NATIVE_DP_SCALAR, 2}}));
  EXPECT_EQ(s->segments[1].start, fall);
  EXPECT_EQ(s->segments[1].counts, counts({{RP_NATIVE_DP_SCALAR, 1}}));
  EXPECT_TRUE(s->segments[1].flags_saved);  // the site ends at a block start with nothing written
  EXPECT_EQ(site_or_null(cases_plan(), fall), nullptr);
}

TEST(PlanModule, ASiteShorterThanAJumpIsRefused) {
  // case 1 of the switch (a 4-byte mulsd) falls into case 2, a jump-table target
  const uint64_t a = plan_cases().address("p_switch_c1");
  EXPECT_EQ(site_or_null(cases_plan(), a), nullptr);
  const Uncounted* u = uncounted_at(cases_plan(), a);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->function, "p_switch");
  EXPECT_EQ(u->why, "shorter than a jump (4 bytes)");
  EXPECT_EQ(u->fp_insns, 1u);
}

TEST(PlanModule, ACallEndsASiteAndTheInstructionAfterItStartsOne) {
  const uint64_t fn = plan_cases().address("p_call_splits"), after = plan_cases().address("p_call_splits_after");
  const Site* before = site_or_null(cases_plan(), fn);
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(before->end, after - 5);  // up to the call, which is in no site
  EXPECT_EQ(before->counts, counts({{RP_NATIVE_DP_SCALAR, 2}}));
  EXPECT_FALSE(before->flags_saved);  // a call follows
  const Site* s = site_or_null(cases_plan(), after);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->counts, counts({{RP_NATIVE_DP_SCALAR, 2}}));
  EXPECT_FALSE(s->flags_saved);  // it ends at a ret
}

TEST(PlanModule, JumpTableEntriesStartSites) {
  const ModulePlan& p = cases_plan();
  // case 1 falls into case 2: only the table makes case 2 a block start, and case 1 (4 bytes)
  // then is too short to patch.
  const Site* c2 = site_or_null(p, plan_cases().address("p_switch_c2"));
  ASSERT_NE(c2, nullptr);
  EXPECT_EQ(c2->counts, counts({{RP_NATIVE_DP_SCALAR, 2}}));
  EXPECT_NE(site_or_null(p, plan_cases().address("p_switch_c0")), nullptr);
  EXPECT_NE(site_or_null(p, plan_cases().address("p_switch_c3")), nullptr);
}

TEST(PlanModule, WithoutTheDataTheTableIsNotFoundAndTheFunctionIsRefused) {
  const ModulePlan p = plan_module(plan_cases().code(), plan_cases().functions(), {});
  const Uncounted* u = uncounted_at(p, plan_cases().address("p_switch_c0"));
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->why, "its function has an indirect jump whose table was not found");
  EXPECT_EQ(site_or_null(p, plan_cases().address("p_switch_c2")), nullptr);
}

TEST(PlanModule, AnIndirectJumpWithNoTableRefusesItsFunction) {
  const Uncounted* u = uncounted_at(cases_plan(), plan_cases().address("p_indirect"));
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->why, "its function has an indirect jump whose table was not found");
  EXPECT_EQ(u->fp_insns, 2u);
}

TEST(PlanModule, ATableAddressNearTheTopOfMemoryIsNoTable) {
  const Uncounted* u = uncounted_at(cases_plan(), plan_cases().address("p_abs_negative"));
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->why, "its function has an indirect jump whose table was not found");
}

TEST(PlanModule, ClassesAreSummedOverTheSite) {
  const Site* s = site_or_null(cases_plan(), plan_cases().address("p_classes"));
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->counts, counts({{RP_NATIVE_SP_256, 8}, {RP_NATIVE_DP_256, 16}, {RP_NATIVE_SP_SCALAR, 1}, {RP_NATIVE_X87, 1}}));
  EXPECT_EQ(s->fp_insns, 5u);
}

TEST(PlanModule, ALoopInstructionIsInNoSite) {
  const uint64_t body = plan_cases().address("p_loop_insn_body");
  const Site* s = site_or_null(cases_plan(), body);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->end, body + 8);  // two addsd, not the loop
}

TEST(PlanModule, BusyAddressesStartBlocks) {
  const uint64_t after = plan_cases().address("p_call_splits_after");
  const uint64_t busy[] = {after + 4};  // the second mulsd
  const ModulePlan p = plan_module(plan_cases().code(), plan_cases().functions(), busy, plan_cases().data());
  const Uncounted* u = uncounted_at(p, after);
  ASSERT_NE(u, nullptr);
  EXPECT_EQ(u->why, "shorter than a jump (4 bytes)");
  const Site* s = site_or_null(p, after + 4);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->counts, counts({{RP_NATIVE_DP_SCALAR, 1}}));
}

TEST(PlanModule, TotalsAndLayout) {
  const ModulePlan& p = cases_plan();
  uint64_t fp = 0, uncounted = 0;
  for (const Site& s : p.sites) fp += s.fp_insns;
  for (const Uncounted& u : p.uncounted) uncounted += u.fp_insns;
  EXPECT_EQ(p.fp_insns, fp + uncounted);
  EXPECT_EQ(p.uncounted_fp_insns, uncounted);
  // loop 1, flags_live 3, call_splits 4, switch 5, indirect 2, abs_negative 2, classes 5, rip 2, rip_evex 2, loop_insn 2, pad 3
  EXPECT_EQ(p.fp_insns, 31u);
  EXPECT_EQ(p.uncounted_fp_insns, 1u + 2u + 2u);  // switch_c1, indirect, abs_negative
  for (size_t i = 1; i < p.sites.size(); ++i) {
    EXPECT_LE(p.sites[i - 1].end, p.sites[i].start);
    EXPECT_GE(p.sites[i].trampoline_at, p.sites[i - 1].trampoline_at + p.sites[i - 1].trampoline_size);
  }
  EXPECT_EQ(p.trampoline_bytes % 16, 0u);
  EXPECT_GE(p.trampoline_bytes, p.sites.back().trampoline_at + p.sites.back().trampoline_size);
}

// On compiled code: no direct branch of any function lands inside a site (only at its start),
// and every site of a function starts at or after the function's start and ends by its end.
class CompiledPlan : public ::testing::TestWithParam<const char*> {};

TEST_P(CompiledPlan, NoBranchLandsInsideASite) {
  LoadedModule m(fixture_path(GetParam()));
  const ModulePlan p = m.plan();
  ASSERT_FALSE(p.sites.empty());
  std::vector<uint64_t> targets;
  for (const Function& f : m.functions()) {
    const uint8_t* bytes = nullptr;
    for (const CodeRange& r : m.code())
      if (f.start >= r.address && f.start + f.size <= r.address + r.bytes.size()) bytes = r.bytes.data() + (f.start - r.address);
    for (uint64_t off = 0; bytes && off < f.size;) {
      auto in = decode_with_capstone(bytes + off, f.size - off, f.start + off);
      if (!in) break;
      if (in->flow == Flow::kJmp || in->flow == Flow::kJcc) targets.push_back(in->target);
      off += in->length;
    }
  }
  ASSERT_FALSE(targets.empty());
  for (const Site& s : p.sites)
    for (uint64_t t : targets) EXPECT_FALSE(t > s.start && t < s.end) << std::hex << t << " inside " << s.start;
  for (const Site& s : p.sites) {
    bool in_one = false;
    for (const Function& f : m.functions()) in_one |= s.start >= f.start && s.end <= f.start + f.size;
    EXPECT_TRUE(in_one) << std::hex << s.start;
  }
}

TEST(PlanModule, ANonPicSwitchsAbsoluteTable) {
  const FileImage img = read_file_image(fixture_path("native_kernels_nopie"));
  const ModulePlan p = plan_module(img.code, img.functions, {}, img.data);
  const Function* fn = nullptr;
  for (const Function& f : img.functions)
    if (f.name == "nk_dispatch") fn = &f;
  ASSERT_NE(fn, nullptr);
  int sites = 0;
  for (const Site& s : p.sites) sites += s.start >= fn->start && s.start < fn->start + fn->size;
  EXPECT_GE(sites, 7);
  for (const Uncounted& u : p.uncounted) EXPECT_NE(u.function, "nk_dispatch") << u.why;
  // without the data, the table is not found
  const ModulePlan blind = plan_module(img.code, img.functions, {});
  bool refused = false;
  for (const Uncounted& u : blind.uncounted)
    refused |= u.function == "nk_dispatch" && u.why == "its function has an indirect jump whose table was not found";
  EXPECT_TRUE(refused);
}

TEST(PlanModule, TheCompiledSwitchHasASitePerCaseWithFlops) {
  for (const char* name : {"libnative_kernels_O2.so", "libnative_kernels_O3.so"}) {
    LoadedModule m(fixture_path(name));
    const ModulePlan p = m.plan();
    const uint64_t fn = m.address("nk_dispatch");
    uint64_t size = 0;
    for (const Function& f : m.functions())
      if (f.start == fn) size = f.size;
    int sites = 0;
    for (const Site& s : p.sites) sites += s.start >= fn && s.start < fn + size;
    EXPECT_GE(sites, 7) << name;  // seven cases with flops, each reached through the table
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, CompiledPlan,
                         ::testing::Values("libnative_kernels_O2.so", "libnative_kernels_O3.so", "libnative_throw.so",
                                           "libnative_avx512.so"));

}  // namespace
}  // namespace roofprof::native::test
