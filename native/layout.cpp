#include "native/layout.hpp"

namespace roofprof::native {

namespace {

constexpr uint8_t kStepOverRedZone[] = {0x48, 0x8d, 0x64, 0x24, 0x80};                     // lea -128(%rsp),%rsp
constexpr uint8_t kStepBackRedZone[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};  // lea 128(%rsp),%rsp
constexpr uint8_t kPushf = 0x9c, kPopf = 0x9d, kPushRax = 0x50, kPopRax = 0x58;
constexpr uint64_t kAddImmBytes = 13;   // 64 48 81 04 25 disp32 imm32: addq $imm32, %fs:disp32
constexpr uint64_t kAddRaxBytes = 9;    // 64 48 01 04 25 disp32: add %rax, %fs:disp32
constexpr uint64_t kSaveFlagsBytes = sizeof kStepOverRedZone + 1 + 1 + sizeof kStepBackRedZone;

void put(std::vector<uint8_t>& out, std::initializer_list<uint8_t> bytes) { out.insert(out.end(), bytes); }
template <size_t N>
void put(std::vector<uint8_t>& out, const uint8_t (&bytes)[N]) { out.insert(out.end(), bytes, bytes + N); }
void put32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t(v >> (8 * i)));
}
uint32_t slot_offset(int slot) { return RP_NATIVE_SLOT_OFFSET(slot); }

int nonzero_counts(const Segment& site) {
  int n = 0;
  for (uint64_t c : site.counts) n += c != 0;
  return n;
}

}  // namespace

uint64_t counts_bytes(const Segment& site) {
  const int n = nonzero_counts(site);
  if (n == 0) return 0;
  return n * kAddImmBytes + (site.flags_saved ? kSaveFlagsBytes : 0);
}

void put_counts(const Segment& site, std::vector<uint8_t>& out) {
  if (nonzero_counts(site) == 0) return;
  if (site.flags_saved) {
    put(out, kStepOverRedZone);
    out.push_back(kPushf);
  }
  for (int slot = 0; slot < RP_NATIVE_SLOTS; ++slot) {
    if (site.counts[slot] == 0) continue;
    put(out, {0x64, 0x48, 0x81, 0x04, 0x25});
    put32(out, slot_offset(slot));
    put32(out, uint32_t(site.counts[slot]));
  }
  if (site.flags_saved) {
    out.push_back(kPopf);
    put(out, kStepBackRedZone);
  }
}

uint64_t masked_count_bytes(const InsnFlops& f) {
  // lea, pushfq, push, kmovw (4), and $imm32 (5), popcnt (4), [add %eax,%eax (2)], add, pop, popfq, lea
  return kSaveFlagsBytes + 2 + 4 + 5 + 4 + (f.per_lane == 2 ? 2 : 0) + kAddRaxBytes;
}

void put_masked_count(const InsnFlops& f, std::vector<uint8_t>& out) {
  put(out, kStepOverRedZone);
  out.push_back(kPushf);
  out.push_back(kPushRax);
  put(out, {0xc5, 0xf8, 0x93, uint8_t(0xc0 | f.mask)});  // kmovw %kN, %eax
  out.push_back(0x25);                                    // and $lanes, %eax
  put32(out, f.lanes >= 32 ? 0xffffffffu : (1u << f.lanes) - 1);
  put(out, {0xf3, 0x0f, 0xb8, 0xc0});                     // popcnt %eax, %eax
  if (f.per_lane == 2) put(out, {0x01, 0xc0});            // add %eax, %eax
  put(out, {0x64, 0x48, 0x01, 0x04, 0x25});               // add %rax, %fs:slot
  put32(out, slot_offset(f.slot));
  out.push_back(kPopRax);
  out.push_back(kPopf);
  put(out, kStepBackRedZone);
}

uint64_t relocated_bytes(const Insn& insn) {
  switch (insn.flow) {
    case Flow::kJcc: return 6;
    case Flow::kJmp: return 5;
    default: return insn.length;
  }
}

bool needs_jump_back(const Insn& last) {
  return last.flow != Flow::kJmp && last.flow != Flow::kIndirectJmp && last.flow != Flow::kRet;
}

}  // namespace roofprof::native
