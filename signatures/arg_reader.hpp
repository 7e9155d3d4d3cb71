#pragma once
// What a decoder needs from a thread stopped at the first instruction of a function (x86-64
// System V ABI): the integer argument registers, the stack pointer, and memory. The tracer
// implements it over ptrace (registers of the stopped thread, /proc/PID/mem or PEEKDATA), the
// in-process agent over its own registers and memory, the tests over a fake.
#include <cstdint>
#include <optional>
#include <vector>

namespace roofprof::signatures {

class ArgReader {
 public:
  virtual ~ArgReader() = default;
  // Integer/pointer argument register `i` at entry: 0 rdi, 1 rsi, 2 rdx, 3 rcx, 4 r8, 5 r9.
  virtual uint64_t reg(int i) = 0;
  // rsp at entry: [rsp] is the return address, the 7th integer argument is at [rsp+8].
  virtual uint64_t stack_pointer() = 0;
  // Memory of the stopped program; null when the address is not readable.
  virtual std::optional<uint64_t> read_u64(uint64_t addr) = 0;
  virtual std::optional<int32_t> read_i32(uint64_t addr) = 0;
  // The call's path: its return address, then its callers' (innermost first, at most `depth`;
  // fewer where the stack cannot be unwound). Empty when this reader cannot unwind.
  virtual std::vector<uint64_t> return_addresses(int depth) {
    (void)depth;
    return {};
  }
  // The process whose memory and modules this is (its maps place the return addresses); 0 when
  // unknown.
  virtual int process() { return 0; }
};

// The `index`-th integer-class argument (0-based; floating-point arguments travel in xmm
// registers and do not count): registers for 0..5, then the stack at [rsp + 8*(index-5)].
std::optional<uint64_t> integer_arg(ArgReader& reader, int index);

}  // namespace roofprof::signatures
