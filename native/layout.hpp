#pragma once
// The trampoline encodings (docs/native.md, "Trampolines"): every piece has a fixed length, so
// that plan_module lays the trampolines out once and emit writes exactly that.
#include <cstdint>
#include <vector>

#include "native/counting.hpp"
#include "native/decode.hpp"

namespace roofprof::native {

inline constexpr uint64_t kTrampolineAlign = 16;

// add $count, %fs:slot for each nonzero count, inside pushfq/popfq over the red zone when the
// flags may be live.
uint64_t counts_bytes(const Segment& seg);
void put_counts(const Segment& seg, std::vector<uint8_t>& out);

// Before a masked AVX-512 instruction: the popcount of its opmask's lanes times its flops per
// lane, added to its class (saves rax and the flags over the red zone).
uint64_t masked_count_bytes(const InsnFlops& f);
void put_masked_count(const InsnFlops& f, std::vector<uint8_t>& out);

// The instruction as the trampoline runs it: direct jmp/jcc as rel32, others their own length.
uint64_t relocated_bytes(const Insn& insn);
// Whether the trampoline needs a jmp back after the site's last instruction.
bool needs_jump_back(const Insn& last);
inline constexpr uint64_t kJumpBackBytes = 5;

}  // namespace roofprof::native
