#pragma once
// An instruction valgrind could not decode, from its log: which instruction (named by
// Capstone from the bytes vex printed), where the program ran it (valgrind's first stack
// frame), and the one-line error roofprof gives for it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofprof::emul {

struct Undecodable {
  std::vector<uint8_t> bytes;  // as vex printed them, from the instruction's first byte
  std::string mnemonic;        // "rdtscp", "rdpid rax"; "" when Capstone does not know it either
  std::string where;           // "probe_cpu (u.c:4)", "hwy::Foo() (in /usr/lib/.../libhwy.so.1)"; "" unknown
};

// The first undecodable instruction a valgrind log tells of; null when it tells of none.
std::optional<Undecodable> parse_undecodable(const std::string& log);

// "PROG executed RDTSCP (0f 01 f9) in hwy::... (in libhwy.so.1), which valgrind cannot
// emulate: ..." with what to do (another backend, or the program kept off the instruction).
std::string undecodable_message(const std::string& program, const Undecodable& u);

}  // namespace roofprof::emul
