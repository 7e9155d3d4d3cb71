#pragma once
// Whether a function's entry can be patched in place with a jump to a thunk (the in-process
// probe of the combined mode, preload/patch_format.h), and the thunk's bytes. Pure: code in,
// bytes out; the tracer reads the code and writes the result (tracer/session_patches.cpp).
//
// A function is patchable when
//  * its first instructions, at least RP_PATCH_JUMP_BYTES long, decode and can run elsewhere:
//    no call (its return address would point into the thunk), loop, jrcxz or interrupt among
//    them; rip-relative operands only as 32-bit memory displacements (rewritten for the
//    thunk); a relative jmp or jcc becomes an absolute jump (behind the inverse jcc); ret and
//    indirect jumps are copied as they are;
//  * none of them reads the return address (a pop before any push, a load from the return
//    address's stack slot): the agent has replaced it with its exit stub by then;
//  * nothing in the function jumps into those bytes after the first (a direct branch found by
//    decoding the whole function; a decoding gap is skipped one byte at a time, so misread
//    bytes can only add false targets, which cost a breakpoint);
//  * no other probe site lies in them (`other_sites`) and the function is at least that long.
// Indirect jumps into a function's first bytes (a jump table aimed at its prologue) cannot be
// seen; compilers do not emit them.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

namespace roofprof::probes {

struct EntryPatch {
  uint64_t entry = 0;
  std::vector<uint8_t> original;  // the displaced bytes, as in the function
  struct Insn {
    enum class Kind { Copy, Jump, CondJump };
    Kind kind = Kind::Copy;
    uint8_t offset = 0;          // in `original`
    uint8_t size = 0;
    int8_t disp_offset = -1;     // Copy: of a rip-relative disp32 inside the instruction, or -1
    uint8_t cond = 0;            // CondJump: the condition code (low nibble of the opcode)
    uint64_t target = 0;         // Jump, CondJump: absolute target
  };
  std::vector<Insn> insns;
  std::string text;  // the displaced instructions, for diagnostics
};

// Direct branch targets found by decoding `code` (one function, at `addr`) from its start;
// bytes that do not decode are skipped one at a time.
std::vector<uint64_t> branch_targets(std::span<const uint8_t> code, uint64_t addr);

// Targets of every jmp/call/jcc rel32 in `code` (a module's executable bytes at `addr`), by a
// byte scan at every offset (no disassembly that data could derail), sorted. Hand-written code
// jumps into other functions' first bytes (glibc's __mempcpy_*_erms jumps past the first
// instruction of __memmove_*_erms): the caller refuses to patch over such a target. A random
// rel32 hitting a given 4-byte range is improbable, so false targets are rare. Only targets in
// [lo, hi) are kept (most byte patterns the scan finds are not instructions: their targets are
// anywhere).
std::vector<uint64_t> rel32_targets(std::span<const uint8_t> code, uint64_t addr, uint64_t lo = 0,
                                    uint64_t hi = UINT64_MAX);

// Where the 32-bit displacement of a rip-relative operand sits in the instruction `insn`:
// Capstone's `reported` offset when the four bytes there are `disp`. A rip-relative
// displacement is always 32 bits, whatever Capstone 4 reports as its size (2 for SSE
// instructions with a 66 prefix). nullopt when `disp` is not found.
std::optional<size_t> disp32_offset(std::span<const uint8_t> insn, size_t reported, int64_t disp);

// `code`: the whole function as it is in memory (its symbol's size), starting at `entry`.
// Returns the patch, or why the entry cannot be patched (one phrase).
std::variant<EntryPatch, std::string> plan_entry_patch(std::span<const uint8_t> code, uint64_t entry,
                                                       std::span<const uint64_t> other_sites);

// A span patch (preload/patch_format.h, "Span patches") at `site`, inside the function whose
// whole code is `function` (from `function_start`): the same rules as an entry's but for the
// return address, which a site inside a function does not touch; a jump from anywhere in the
// function into the displaced bytes after the first refuses it.
std::variant<EntryPatch, std::string> plan_span_patch(std::span<const uint8_t> function, uint64_t function_start,
                                                      uint64_t site, std::span<const uint64_t> other_sites);

// The thunk of a span patch (RP_PATCH_THUNK_BYTES at `thunk`): it enters the agent at
// `agent_span` with its descriptor {region_word, role, continuation}. Throws UserError as
// thunk_code does.
std::vector<uint8_t> span_thunk_code(const EntryPatch& p, uint64_t thunk, uint64_t agent_span, uint32_t region_word,
                                     uint32_t role);

// The thunk placed at `thunk` (RP_PATCH_THUNK_BYTES): it enters the agent at `agent_entry` with
// its descriptor {region_word, continuation}. Throws UserError when a relocated displacement
// does not reach from `thunk`.
std::vector<uint8_t> thunk_code(const EntryPatch& p, uint64_t thunk, uint64_t agent_entry, uint32_t region_word);

// What replaces the displaced bytes: `jmp rel32` to the thunk, then int3 up to their length
// (nothing jumps there). Throws UserError when the thunk is out of rel32 reach.
std::vector<uint8_t> entry_jump(const EntryPatch& p, uint64_t thunk);

}  // namespace roofprof::probes
