#include "probes/entry_patch.hpp"

#include <gtest/gtest.h>
#include <algorithm>
#include <random>

#include <cstring>

#include "preload/patch_format.h"
#include "probes/site_role.h"

namespace roofprof::probes {
namespace {

EntryPatch patch_of(const std::variant<EntryPatch, std::string>& v) {
  if (auto* why = std::get_if<std::string>(&v)) ADD_FAILURE() << "not patchable: " << *why;
  return std::holds_alternative<EntryPatch>(v) ? std::get<EntryPatch>(v) : EntryPatch{};
}

std::string refusal(const std::variant<EntryPatch, std::string>& v) {
  return std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : "";
}

uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v;
  std::memcpy(&v, &b[at], 8);
  return v;
}

// endbr64; push rbp; mov rbp,rsp; mov eax,[rip+0x100]; pop rbp; ret
const std::vector<uint8_t> kPrologue = {0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5,
                                        0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0x5d, 0xc3};

TEST(EntryPatch, DisplacesWholeInstructionsCoveringTheJump) {
  auto v = plan_entry_patch(kPrologue, 0x401000, {});
  EntryPatch p = patch_of(v);
  ASSERT_EQ(p.insns.size(), 2u);  // endbr64 (4) and push rbp (1): 5 bytes
  EXPECT_EQ(p.original.size(), 5u);
  auto jump = entry_jump(p, 0x402000);
  ASSERT_EQ(jump.size(), 5u);
  EXPECT_EQ(jump[0], 0xe9);
  int32_t rel;
  std::memcpy(&rel, &jump[1], 4);
  EXPECT_EQ(0x401000 + 5 + int64_t(rel), 0x402000);
}

TEST(EntryPatch, ThunkEntersTheAgentWithItsDescriptorAndJumpsBack) {
  auto v = plan_entry_patch(kPrologue, 0x401000, {});
  EntryPatch p = patch_of(v);
  const uint64_t thunk = 0x500000, agent = 0x7f0000001230;
  auto code = thunk_code(p, thunk, agent, RP_PATCH_REGION_FLAG | 7);
  ASSERT_EQ(code.size(), RP_PATCH_THUNK_BYTES);
  // push %r11, then lea desc(%rip), %r11 lands on the descriptor
  EXPECT_EQ(code[0], 0x41);
  EXPECT_EQ(code[1], 0x53);
  int32_t lea;
  std::memcpy(&lea, &code[5], 4);
  EXPECT_EQ(9 + lea, int32_t(RP_PATCH_DESC_OFFSET));
  EXPECT_EQ(code[9], 0xff);
  EXPECT_EQ(code[10], 0x25);
  EXPECT_EQ(u64_at(code, 15), agent);
  rp_patch_desc d;
  std::memcpy(&d, &code[RP_PATCH_DESC_OFFSET], sizeof d);
  EXPECT_EQ(d.region, RP_PATCH_REGION_FLAG | 7);
  EXPECT_EQ(d.continuation, thunk + RP_PATCH_CODE_OFFSET);
  // the displaced bytes, then jmp *(entry + 5)
  EXPECT_TRUE(std::equal(p.original.begin(), p.original.end(), code.begin() + RP_PATCH_CODE_OFFSET));
  size_t back = RP_PATCH_CODE_OFFSET + p.original.size();
  EXPECT_EQ(code[back], 0xff);
  EXPECT_EQ(u64_at(code, back + 6), 0x401000u + 5);
}

TEST(EntryPatch, RipRelativeOperandKeepsItsTarget) {
  // mov rax,[rip+0x100]; ret ... (7 + 1 bytes, padded)
  std::vector<uint8_t> f = {0x48, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3, 0x90, 0x90};
  auto v = plan_entry_patch(f, 0x10000, {});
  EntryPatch p = patch_of(v);
  ASSERT_EQ(p.original.size(), 7u);
  const uint64_t thunk = 0x20000;
  auto code = thunk_code(p, thunk, 0x1234, RP_PATCH_REGION_FLAG);
  int32_t disp;
  std::memcpy(&disp, &code[RP_PATCH_CODE_OFFSET + 3], 4);
  EXPECT_EQ(int64_t(thunk + RP_PATCH_CODE_OFFSET + 7) + disp, 0x10000 + 7 + 0x100);
}

TEST(EntryPatch, RefusesWhatCannotRunElsewhere) {
  // a call in the first bytes: its return address would point into the thunk
  std::string why = refusal(plan_entry_patch(std::vector<uint8_t>{0xe8, 0, 0, 0, 0, 0xc3}, 0x1000, {}));
  EXPECT_NE(why.find("cannot run elsewhere"), std::string::npos) << why;
  // xor eax,eax; ret: shorter than the jump
  EXPECT_NE(refusal(plan_entry_patch(std::vector<uint8_t>{0x31, 0xc0, 0xc3}, 0x1000, {})), "");
  // loop rel8 has no absolute form
  EXPECT_NE(refusal(plan_entry_patch(std::vector<uint8_t>{0xe2, 0x10, 0x90, 0x90, 0x90, 0xc3}, 0x1000, {})), "");
}

TEST(EntryPatch, RefusesToDisplaceAReadOfTheReturnAddress) {
  // mov (%rsp),%rax; ret: the agent's exit stub would be read instead
  std::string why = refusal(plan_entry_patch(std::vector<uint8_t>{0x48, 0x8b, 0x04, 0x24, 0xc3, 0x90}, 0x1000, {}));
  EXPECT_NE(why.find("return address"), std::string::npos) << why;
  // push %rbx; mov 8(%rsp),%rax: the same slot after one push
  why = refusal(plan_entry_patch(std::vector<uint8_t>{0x53, 0x48, 0x8b, 0x44, 0x24, 0x08, 0xc3}, 0x1000, {}));
  EXPECT_NE(why.find("return address"), std::string::npos) << why;
  // push %rbx; mov (%rsp),%rax reads the pushed rbx: fine
  EXPECT_EQ(refusal(plan_entry_patch(std::vector<uint8_t>{0x53, 0x48, 0x8b, 0x04, 0x24, 0x5b, 0xc3}, 0x1000, {})), "");
}

TEST(EntryPatch, ATinyFunctionEndingInRetIsPatched) {
  // lea 1(%rdi),%rax; ret: ret runs the same from the thunk
  std::vector<uint8_t> f = {0x48, 0x8d, 0x47, 0x01, 0xc3};
  EntryPatch p = patch_of(plan_entry_patch(f, 0x1000, {}));
  EXPECT_EQ(p.original.size(), 5u);
}

TEST(EntryPatch, RelativeJumpsBecomeAbsolute) {
  // test edi,edi; jle +0x20; ret (2 + 2 + 1 bytes): jle goes to 0x1000 + 4 + 0x20
  std::vector<uint8_t> f(0x40, 0x90);
  const uint8_t head[] = {0x85, 0xff, 0x7e, 0x20, 0xc3};
  std::copy(std::begin(head), std::end(head), f.begin());
  EntryPatch p = patch_of(plan_entry_patch(f, 0x1000, {}));
  ASSERT_EQ(p.insns.size(), 3u);
  EXPECT_EQ(p.insns[1].kind, EntryPatch::Insn::Kind::CondJump);
  EXPECT_EQ(p.insns[1].target, 0x1024u);
  auto code = thunk_code(p, 0x9000, 0x1234, RP_PATCH_REGION_FLAG);
  size_t c = RP_PATCH_CODE_OFFSET;
  EXPECT_EQ(code[c], 0x85);       // test copied
  EXPECT_EQ(code[c + 2], 0x7f);   // jg (the inverse of jle) over the absolute jump
  EXPECT_EQ(code[c + 3], 14);
  EXPECT_EQ(code[c + 4], 0xff);
  EXPECT_EQ(u64_at(code, c + 10), 0x1024u);
  EXPECT_EQ(code[c + 18], 0xc3);  // ret copied
  // jmp rel32 (a wrapper's tail call) becomes jmp *abs
  std::vector<uint8_t> w = {0xe9, 0x00, 0x10, 0x00, 0x00, 0xcc};
  EntryPatch q = patch_of(plan_entry_patch(w, 0x2000, {}));
  auto qc = thunk_code(q, 0x9000, 0x1234, RP_PATCH_REGION_FLAG);
  EXPECT_EQ(qc[RP_PATCH_CODE_OFFSET], 0xff);
  EXPECT_EQ(u64_at(qc, RP_PATCH_CODE_OFFSET + 6), 0x2000u + 5 + 0x1000);
}

TEST(EntryPatch, RefusesWhenALoopJumpsIntoTheDisplacedBytes) {
  // 0: endbr64; 4: add eax,1 (83 c0 01); 7: cmp eax,edi (39 f8); 9: jne 4 (75 f9); b: ret
  std::vector<uint8_t> f = {0xf3, 0x0f, 0x1e, 0xfa, 0x83, 0xc0, 0x01, 0x39, 0xf8, 0x75, 0xf9, 0xc3};
  std::string why = refusal(plan_entry_patch(f, 0x1000, {}));
  EXPECT_NE(why.find("jump inside the function"), std::string::npos) << why;
  // A loop back to the entry itself runs the jump again: the agent sees the region open on
  // that thread (recursion, counted once), as a breakpoint there would.
  f[10] = uint8_t(0 - 11);  // jne 0
  EXPECT_EQ(refusal(plan_entry_patch(f, 0x1000, {})), "");
}

TEST(EntryPatch, RefusesWhenAnotherSiteIsInTheDisplacedBytes) {
  std::vector<uint64_t> sites = {0x401004};  // push rbp, after endbr64
  std::string why = refusal(plan_entry_patch(kPrologue, 0x401000, sites));
  EXPECT_NE(why.find("another probe site"), std::string::npos) << why;
  std::vector<uint64_t> at_entry = {0x401000, 0x401008};
  EXPECT_EQ(refusal(plan_entry_patch(kPrologue, 0x401000, at_entry)), "");
}

// A span patch inside a function (an inlined copy's boundary): a pop is displaced (no return
// address is involved), and the thunk steps over the red zone before it enters the agent.
TEST(SpanPatch, ThunkStepsOverTheRedZoneAndCarriesTheRole) {
  // 0: push rbp; 1: mov rbp,rsp; 4: pop rbp; 5: mov eax,[rip+0x100]; b: ret
  std::vector<uint8_t> f = {0x55, 0x48, 0x89, 0xe5, 0x5d, 0x8b, 0x05, 0x00, 0x01, 0x00, 0x00, 0xc3};
  EntryPatch p = patch_of(plan_span_patch(f, 0x401000, 0x401004, {}));
  ASSERT_EQ(p.insns.size(), 2u);  // pop rbp (1) and the load (6): 7 bytes
  EXPECT_EQ(p.entry, 0x401004u);
  const uint64_t thunk = 0x500000, agent = 0x7f0000004560;
  auto code = span_thunk_code(p, thunk, agent, RP_PATCH_REGION_FLAG | 3, RP_SITE_SPAN_STOP);
  ASSERT_EQ(code.size(), RP_PATCH_THUNK_BYTES);
  EXPECT_EQ(std::vector<uint8_t>(code.begin(), code.begin() + 7),
            (std::vector<uint8_t>{0x48, 0x8d, 0x64, 0x24, 0x80, 0x41, 0x53}));  // lea -128(%rsp),%rsp; push %r11
  int32_t lea;
  std::memcpy(&lea, &code[10], 4);
  EXPECT_EQ(14 + lea, int32_t(RP_SPAN_DESC_OFFSET));
  EXPECT_EQ(u64_at(code, 20), agent);
  rp_patch_desc d;
  std::memcpy(&d, &code[RP_SPAN_DESC_OFFSET], sizeof d);
  EXPECT_EQ(d.region, RP_PATCH_REGION_FLAG | 3);
  EXPECT_EQ(d.role, uint32_t(RP_SITE_SPAN_STOP));
  EXPECT_EQ(d.continuation, thunk + RP_SPAN_CODE_OFFSET);
  // lea 128(%rsp),%rsp, the pop, the load with its displacement moved, jmp *(site + 7)
  const size_t c = RP_SPAN_CODE_OFFSET;
  EXPECT_EQ(std::vector<uint8_t>(code.begin() + c, code.begin() + c + 9),
            (std::vector<uint8_t>{0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00, 0x5d}));
  int32_t disp;
  std::memcpy(&disp, &code[c + 11], 4);
  EXPECT_EQ(int64_t(thunk + c + 15) + disp, 0x401005 + 6 + 0x100);
  EXPECT_EQ(code[c + 15], 0xff);
  EXPECT_EQ(u64_at(code, c + 21), 0x401004u + 7);
}

TEST(SpanPatch, RefusesWhenCodeBeforeTheSiteJumpsIntoTheDisplacedBytes) {
  // 0: add eax,1; 3: cmp eax,edi; 5: jne 3; 7: ret. A site at 0 displaces add and cmp (5 bytes):
  // the loop's jne lands on cmp, inside them.
  std::vector<uint8_t> f = {0x83, 0xc0, 0x01, 0x39, 0xf8, 0x75, 0xfc, 0xc3};
  EXPECT_NE(refusal(plan_span_patch(f, 0x1000, 0x1000, {})).find("a jump in the function lands"), std::string::npos);
  // A site at 3 (cmp, jne: 4 bytes, then ret) is reached by the jne at its first byte: patched.
  EXPECT_EQ(refusal(plan_span_patch(f, 0x1000, 0x1003, {})), "");
  EXPECT_NE(refusal(plan_span_patch(f, 0x1000, 0x1003, std::vector<uint64_t>{0x1005})).find("another probe site"),
            std::string::npos);
}

TEST(Rel32Targets, EveryCallJmpAndJccPatternSortedAndOnlyThoseInTheRange) {
  // 0x1000: call +0x10 (-> 0x1015); 0x1005: jne -0x20 (-> 0xfeb); 0x100b: jmp +0x100000 (-> 0x101010)
  const std::vector<uint8_t> code = {0xe8, 0x10, 0, 0, 0, 0x0f, 0x85, 0xe0, 0xff, 0xff, 0xff, 0xe9, 0, 0, 0x10, 0};
  EXPECT_EQ(rel32_targets(code, 0x1000), (std::vector<uint64_t>{0xfeb, 0x1015, 0x101010}));
  EXPECT_EQ(rel32_targets(code, 0x1000, 0x1000, 0x2000), (std::vector<uint64_t>{0x1015}));
}

// The scan reads 16 bytes at a time: patterns at every offset of a block, across blocks' edges
// and in the tail give what a byte-at-a-time reading of the same bytes gives.
TEST(Rel32Targets, BlockScanFindsWhatAByteScanFinds) {
  std::mt19937 rng(7);
  std::vector<uint8_t> code(4099);  // not a multiple of 16: a tail
  const uint8_t frequent[] = {0xe8, 0xe9, 0x0f, 0x80, 0x85, 0x8f, 0x90, 0x00, 0xff, 0x7f};
  for (auto& b : code) b = rng() % 2 ? frequent[rng() % 10] : uint8_t(rng());
  for (size_t at : {size_t(15), size_t(16), size_t(31), size_t(4093), size_t(4094)}) {  // edges, a jcc that does not fit
    code[at] = 0x0f;
    code[at + 1] = 0x84;
  }
  code[4094] = 0xe8;  // a call whose rel32 would run past the end
  std::vector<uint64_t> expected;
  // Every pattern (random displacements land anywhere), then those of a few planted short branches.
  const uint64_t addr = 0x400000, lo = 0, hi = UINT64_MAX;
  for (size_t i = 0; i < code.size(); ++i) {
    auto rel = [&](size_t k) { return int64_t(int32_t(uint32_t(code[k]) | uint32_t(code[k + 1]) << 8 |
                                                       uint32_t(code[k + 2]) << 16 | uint32_t(code[k + 3]) << 24)); };
    uint64_t t = 0;
    if ((code[i] == 0xe8 || code[i] == 0xe9) && i + 5 <= code.size()) t = addr + i + 5 + uint64_t(rel(i + 1));
    else if (code[i] == 0x0f && i + 6 <= code.size() && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f)
      t = addr + i + 6 + uint64_t(rel(i + 2));
    else continue;
    if (t >= lo && t < hi) expected.push_back(t);
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_GT(expected.size(), 400u);  // the bytes hold many patterns
  EXPECT_EQ(rel32_targets(code, addr, lo, hi), expected);
  std::vector<uint8_t> planted = code;
  const uint8_t call_back[] = {0xe8, 0xf0, 0xff, 0xff, 0xff};  // at 100: to 100 + 5 - 16
  std::copy(std::begin(call_back), std::end(call_back), planted.begin() + 100);
  const uint8_t jcc_on[] = {0x0f, 0x8e, 0x20, 0, 0, 0};  // at 2000: to 2000 + 6 + 32
  std::copy(std::begin(jcc_on), std::end(jcc_on), planted.begin() + 2000);
  const auto found = rel32_targets(planted, addr, addr, addr + planted.size());
  EXPECT_TRUE(std::binary_search(found.begin(), found.end(), addr + 89));
  EXPECT_TRUE(std::binary_search(found.begin(), found.end(), addr + 2038));
  for (uint64_t t : found) EXPECT_TRUE(t >= addr && t < addr + planted.size());
}

}  // namespace
}  // namespace roofprof::probes
