#pragma once
// Which functions of a shared library are reached only through the dynamic linker: the
// functions whose every call the in-process agent's GOT redirection sees (docs/preload.md,
// "The combined mode"). Everything else keeps a breakpoint.
#include <cstdint>
#include <set>
#include <string>

namespace roofprof::symbolizer {

// The link-time addresses among `candidates` (function entries of the ELF file at `path`)
// that are exported (a defined GLOBAL or WEAK STT_FUNC or STT_GNU_IFUNC of .dynsym with default
// visibility) and that nothing inside the file refers to directly:
//  * no 4-byte pc-relative displacement in an executable section points at them: a byte scan
//    at every offset (no disassembly that data in code could derail), keeping the positions
//    that follow an e8/e9 (call/jmp rel32) or 0f 8x (jcc rel32) opcode or a rip-relative
//    ModRM byte (lea, call *mem): every direct call, jump or address-taking is found;
//  * no 1-byte jump (jmp/jcc/loop rel8) does,
//    (references from inside the function itself, to its own entry, do not count: a loop or
//    direct recursion stays inside the instance its outermost call opened)
//  * no dynamic relocation stores their address (R_X86_64_RELATIVE addend, or an absolute
//    R_X86_64_64 of their symbol: vtables and function-pointer tables).
// False positives only cost a breakpoint. Throws UserError when the file cannot be read.
std::set<uint64_t> only_called_through_got(const std::string& path, const std::set<uint64_t>& candidates);

}  // namespace roofprof::symbolizer
