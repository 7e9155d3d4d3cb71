// emit's bytes for hand-written sites (tests/fixtures/native/plan_cases.S), and its refusal of a
// base out of rel32 reach.
#include <gtest/gtest.h>

#include <cstring>

#include "common/error.hpp"
#include "native/counting.hpp"
#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {

LoadedModule& cases() {
  static LoadedModule m(fixture_path("libnative_plan_cases.so"));
  return m;
}

const Site& site_at(const ModulePlan& p, uint64_t a) {
  for (const Site& s : p.sites)
    if (s.start == a) return s;
  throw std::runtime_error("no site");
}

std::vector<uint8_t> le32(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }

TEST(Emit, TheTightLoopsTrampolineByteByByte) {
  const ModulePlan plan = cases().plan();
  const uint64_t base = cases().code().front().address - (64u << 20);
  const Emitted e = emit(plan, cases().code(), base);
  ASSERT_EQ(e.trampolines.size(), plan.trampoline_bytes);
  const uint64_t body = cases().address("p_loop_body");
  const Site& s = site_at(plan, body);
  const uint64_t t = base + s.trampoline_at;
  std::vector<uint8_t> want = {0x64, 0x48, 0x81, 0x04, 0x25, 0xa0, 0, 0, 0, 1, 0, 0, 0};  // addq $1, %fs:0xa0
  const uint8_t loop[] = {0xf2, 0x0f, 0x58, 0x04, 0xc6, 0x48, 0x83, 0xc0, 0x01, 0x48, 0x39, 0xf8};
  want.insert(want.end(), std::begin(loop), std::end(loop));      // addsd, add, cmp as they were
  want.insert(want.end(), {0x0f, 0x85});                          // jne rel32 to this trampoline
  const auto rel = le32(uint32_t(int32_t(t - (t + want.size() + 4))));
  want.insert(want.end(), rel.begin(), rel.end());
  want.push_back(0xc3);                                           // ret (its own segment, no counts)
  ASSERT_EQ(s.trampoline_size, want.size());
  EXPECT_EQ(std::vector<uint8_t>(e.trampolines.begin() + s.trampoline_at, e.trampolines.begin() + s.trampoline_at + s.trampoline_size),
            want);
}

TEST(Emit, TheJumpCoversWholeInstructionsWithInt3) {
  const ModulePlan plan = cases().plan();
  const uint64_t base = cases().code().front().address - (64u << 20);
  const Emitted e = emit(plan, cases().code(), base);
  const uint64_t a = cases().address("p_flags_live_site");  // mulsd (4) mulsd (4): the jump cuts both
  const Site& s = site_at(plan, a);
  for (const auto& j : e.jumps) {
    if (j.at != a) continue;
    std::vector<uint8_t> want = {0xe9};
    const auto rel = le32(uint32_t(int32_t(base + s.trampoline_at - (a + 5))));
    want.insert(want.end(), rel.begin(), rel.end());
    want.insert(want.end(), {0xcc, 0xcc, 0xcc});
    EXPECT_EQ(j.bytes, want);
    return;
  }
  FAIL() << "no jump at the site";
}

TEST(Emit, SavedFlagsWrapTheCounts) {
  const ModulePlan plan = cases().plan();
  const uint64_t base = cases().code().front().address - (64u << 20);
  const Emitted e = emit(plan, cases().code(), base);
  const Site& s = site_at(plan, cases().address("p_flags_live_site"));
  const uint8_t* t = e.trampolines.data() + s.trampoline_at;
  const uint8_t want[] = {0x48, 0x8d, 0x64, 0x24, 0x80, 0x9c,                                // lea -128(%rsp),%rsp; pushfq
                          0x64, 0x48, 0x81, 0x04, 0x25, 0xa0, 0, 0, 0, 2, 0, 0, 0,          // addq $2, %fs:0xa0
                          0x9d, 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};            // popfq; lea 128(%rsp),%rsp
  EXPECT_EQ(std::memcmp(t, want, sizeof want), 0);
}

TEST(Emit, ABaseOutOfRel32ReachIsAUserError) {
  const ModulePlan plan = cases().plan();
  const uint64_t far = cases().code().front().address + (uint64_t(8) << 30);
  EXPECT_THROW(emit(plan, cases().code(), far), UserError);
}

// The module `shift` bytes further on: the same bytes at other addresses.
struct Shifted {
  std::vector<CodeRange> code, data;
  std::vector<Function> functions;
  Shifted(const LoadedModule& m, int64_t shift) {
    for (CodeRange r : m.code()) code.push_back({r.address + uint64_t(shift), r.bytes});
    for (CodeRange r : m.data()) data.push_back({r.address + uint64_t(shift), r.bytes});
    for (Function f : m.functions()) functions.push_back({f.start + uint64_t(shift), f.size, f.name});
  }
};

// A kept patch moved (rebased) is byte for byte what emit gives for the module and trampolines
// where they are now: the module moved by one amount and the trampolines by another.
TEST(Emit, RebasedIsWhatEmitGivesWhereTheModuleAndTrampolinesNowAre) {
  const ModulePlan plan = cases().plan();
  const uint64_t base = cases().code().front().address - (64u << 20);
  const Emitted kept = emit(plan, cases().code(), base);
  ASSERT_FALSE(kept.relocs.empty());
  for (int64_t shift : {int64_t(0), int64_t(0x3000), -int64_t(0x12345000)}) {
    const Shifted moved(cases(), shift);
    const ModulePlan there = plan_module(moved.code, moved.functions, {}, moved.data);
    ASSERT_EQ(there.sites.size(), plan.sites.size());
    for (uint64_t new_base : {base + uint64_t(shift), base + uint64_t(shift) + (5u << 20), base + uint64_t(shift) - (700u << 20)}) {
      const Emitted want = emit(there, moved.code, new_base);
      const Emitted got = rebased(kept, shift, new_base);
      EXPECT_EQ(got.base, new_base);
      EXPECT_EQ(got.trampolines, want.trampolines) << shift << " " << std::hex << new_base;
      EXPECT_EQ(got.relocs, want.relocs);
      ASSERT_EQ(got.jumps.size(), want.jumps.size());
      for (size_t k = 0; k < want.jumps.size(); ++k) {
        EXPECT_EQ(got.jumps[k].at, want.jumps[k].at);
        EXPECT_EQ(got.jumps[k].bytes, want.jumps[k].bytes);
      }
    }
  }
}

TEST(Emit, RebasedOutOfRel32ReachIsAUserError) {
  const ModulePlan plan = cases().plan();
  const Emitted kept = emit(plan, cases().code(), cases().code().front().address - (64u << 20));
  EXPECT_THROW(rebased(kept, 0, cases().code().front().address + (uint64_t(8) << 30)), UserError);
}

}  // namespace
}  // namespace roofprof::native::test
