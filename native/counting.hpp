#pragma once
// Native counting (docs/native.md): which code of a module carries floating-point work, and the
// trampolines that count it where it runs. Pure: code bytes and symbols in, patch bytes out; the
// tracer reads a module's code when it is mapped and writes the result
// (tracer/session_native.cpp). The counts go to the thread's slots of preload/native_format.h.
//
// A module's code is cut into counting sites. A site is a straight run of instructions inside one
// function: it starts at a block start (a function's entry, a branch target, a jump-table entry,
// the instruction after a call, jmp or ret, an address in `busy`: the tracer adds the exception
// landing pads, native/landing_pads.hpp) and ends at the first of: a block terminator (jmp,
// indirect jmp, ret: included), a call (excluded: a return address must be in the module's own
// code, for unwinders and exceptions), an instruction emit does not relocate (loop, loope,
// loopne, jrcxz, xbegin: excluded, like a call), the next block start (excluded), the function's
// end. A jcc does not end a site: the code after it is reached only
// by falling through it, and starts a new segment whose counts are added where it begins. Only
// sites holding an instruction with flops are patched.
//
// A patched site's first RP_NATIVE_JUMP_BYTES become `jmp rel32` to its trampoline (int3 over the
// rest of the instructions they cut); the trampoline
//   * adds each segment's static counts where the segment begins, one `add $imm, %fs:slot` per
//     nonzero class (flags saved around them only where they may be live: pushfq/popfq after
//     stepping over the red zone);
//   * runs the site's instructions, relocated (rip-relative operands rewritten, a relative
//     jmp/jcc kept as rel32 to its target, or to the target site's trampoline when the target is
//     a patched site: loops stay in trampolines), with, before each AVX-512 instruction whose
//     lanes an opmask k1-k7 selects, the popcount of the mask (of its lanes) times its flops per
//     lane added to its class;
//   * jumps to the site's end (or the next site's trampoline) when it does not end in a jump.
// The original bytes after the first RP_NATIVE_JUMP_BYTES stay as they were: code that jumps
// into the middle of a site (a target the analysis missed) runs the original uncounted, never
// corrupts. A site is refused (uncounted, with why) when it is shorter than a jump (then no block
// start or `busy` address can lie inside its first RP_NATIVE_JUMP_BYTES but at the first byte),
// or its function is: it does not decode to its end, or it has an indirect jump whose table was
// not found.
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "preload/native_format.h"

namespace roofprof::native {

inline constexpr size_t kJumpBytes = 5;  // RP_NATIVE_JUMP_BYTES: e9 rel32

// The flops of one instruction by the emulation tool's rules (docs/emulation.md); nullopt for an
// instruction with none (moves, compares, conversions, logic, integer code).
struct InsnFlops {
  rp_native_slot slot = RP_NATIVE_SP_SCALAR;
  uint32_t per_lane = 1;  // 2 for FMA and DPP
  uint32_t lanes = 1;     // lanes of its width: 1 scalar, 2/4/8 DP, 4/8/16 SP (HADD: of the result)
  int mask = 0;           // AVX-512: the opmask register k1-k7 selecting lanes (merging or zeroing); 0 none
  uint64_t flops() const { return uint64_t(per_lane) * lanes; }  // with every lane active
};
std::optional<InsnFlops> insn_flops(const uint8_t* code, size_t avail, uint64_t at);

// One executable range of the module as it is mapped (runtime addresses), and its functions.
struct CodeRange {
  uint64_t address = 0;
  std::span<const uint8_t> bytes;
};
struct Function {
  uint64_t start = 0, size = 0;  // runtime addresses
  std::string name;
};

// A run of a site's instructions entered only at the site's start or by falling through a jcc:
// its static counts are added where it begins.
struct Segment {
  uint64_t start = 0;
  std::array<uint64_t, RP_NATIVE_SLOTS> counts{};
  bool flags_saved = false;  // the flags may be live where it begins
};

struct Site {
  uint64_t start = 0, end = 0;                          // [start, end): the instructions the trampoline runs
  std::array<uint64_t, RP_NATIVE_SLOTS> counts{};       // static counts of all its segments (masked instructions: at run time)
  uint32_t fp_insns = 0;                                // instructions with flops in it
  uint32_t masked = 0;                                  // of them, counted at run time from their opmask
  bool flags_saved = false;                             // the flags may be live at its start
  std::vector<Segment> segments;                        // the first starts at `start`
  // Its start is in `busy`: another probe is (or will be) there, so jumps to it go through the
  // original code (its probe, then its counting jump), never straight to its trampoline.
  bool probed = false;
  uint64_t trampoline_at = 0;                           // offset of its trampoline from emit's base
  uint64_t trampoline_size = 0;
};

struct Uncounted {
  uint64_t start = 0;  // the site that could not be patched
  std::string function;
  std::string why;     // one phrase: "shorter than a jump (3 bytes)", "a block starts inside its first 5 bytes", ...
  uint32_t fp_insns = 0;
};

struct ModulePlan {
  std::vector<Site> sites;          // sorted by start, disjoint
  std::vector<Uncounted> uncounted;
  uint64_t fp_insns = 0;            // static instructions with flops in the module's functions
  uint64_t uncounted_fp_insns = 0;  // of them, in uncounted sites
  uint64_t trampoline_bytes = 0;    // what emit() writes
};

// `busy`: addresses other probes use (breakpoints, entry patches): each starts a block.
// `data`: the module's other readable ranges (.rodata), where compilers put jump tables; a
// function with an indirect jump whose table is found in neither `code` nor `data` is refused.
ModulePlan plan_module(std::span<const CodeRange> code, std::span<const Function> functions,
                       std::span<const uint64_t> busy, std::span<const CodeRange> data = {});

struct Emitted {
  uint64_t base = 0;                 // where the trampolines go
  std::vector<uint8_t> trampolines;  // plan.trampoline_bytes, to be written at `base`
  struct Jump {
    uint64_t at = 0;
    std::vector<uint8_t> bytes;  // e9 rel32, then int3 over the rest of the instructions it cuts
  };
  std::vector<Jump> jumps;  // one per site, sorted by address, written after the trampolines
  // Offsets in `trampolines` of the rel32 fields that reach out of them (into the module: jumps
  // back, branch targets, rip-relative operands): what moves when the trampolines move relative
  // to the module (rebased()).
  std::vector<uint32_t> relocs;
};
// Throws UserError when `base` is out of rel32 reach of a site or of a relocated operand.
Emitted emit(const ModulePlan& plan, std::span<const CodeRange> code, uint64_t base);

// The same trampolines and jumps for the module loaded `bias_shift` bytes further on and the
// trampolines at `base`: byte for byte what emit() would give there, without decoding anything.
// Throws UserError as emit() does when `base` is out of reach.
Emitted rebased(Emitted e, int64_t bias_shift, uint64_t base);

}  // namespace roofprof::native
