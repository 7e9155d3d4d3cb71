// survey/stack_unwind: the sample's memory (copied stack, then module files) and CFI unwinding
// of a stack copied the way a sample copies it, here from this test's own thread.
#include "survey/stack_unwind.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace roofprof::survey {
namespace {

// This process's executable mappings of files, from /proc/self/maps, as the sampler records them.
std::vector<Mapping> unwind_test_own_mappings() {
  std::vector<Mapping> out;
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    std::string range, perms, offset, dev, inode, path;
    ls >> range >> perms >> offset >> dev >> inode >> path;
    if (perms.size() < 3 || perms[2] != 'x' || path.empty() || path[0] != '/') continue;
    Mapping m;
    m.pid = uint32_t(::getpid());
    m.start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    m.len = std::stoull(range.substr(range.find('-') + 1), nullptr, 16) - m.start;
    m.pgoff = std::stoull(offset, nullptr, 16);
    m.path = path;
    out.push_back(m);
  }
  return out;
}

// The end of the mapping that holds `addr` (the thread's stack: how much of it may be copied).
uint64_t unwind_test_mapping_end(uint64_t addr) {
  std::ifstream in("/proc/self/maps");
  std::string line;
  while (std::getline(in, line)) {
    const uint64_t lo = std::stoull(line.substr(0, line.find('-')), nullptr, 16);
    const uint64_t hi = std::stoull(line.substr(line.find('-') + 1), nullptr, 16);
    if (addr >= lo && addr < hi) return hi;
  }
  return addr;
}

TEST(SampleMemory, ReadsTheCopiedStackWithinItsBounds) {
  std::vector<uint8_t> stack(32);
  for (size_t i = 0; i < stack.size(); ++i) stack[i] = uint8_t(i + 1);
  std::vector<PlacedModule> none;
  SampleMemory mem(0x1000, stack, none);
  EXPECT_EQ(mem.read_u64(0x1000), 0x0807060504030201ull);
  EXPECT_EQ(mem.read_u64(0x1018), 0x201f1e1d1c1b1a19ull);
  EXPECT_EQ(mem.read_u64(0x1019), std::nullopt);  // 7 bytes of the copy left
  EXPECT_EQ(mem.read_u64(0x0ff8), std::nullopt);  // below the sampled %rsp
}

__attribute__((noinline)) int unwind_test_code(int x) { return x * 3 + 1; }

// Outside the copy: the bytes of the module file at the runtime address, as the process maps them.
TEST(SampleMemory, ReadsModuleCodeFromTheFile) {
  StackUnwinder unwinder;
  const auto maps = unwind_test_own_mappings();
  const auto& modules = unwinder.modules_of(maps, uint32_t(::getpid()));
  SampleMemory mem(0, {}, modules);
  const auto addr = reinterpret_cast<uint64_t>(&unwind_test_code);
  uint64_t live;
  std::memcpy(&live, reinterpret_cast<const void*>(addr), 8);
  ASSERT_NE(mem.module_at(addr), nullptr);
  EXPECT_EQ(mem.read_u64(addr), live);
  EXPECT_EQ(mem.read_u64(8), std::nullopt);  // in no module
}

// What a sample carries: the registers at one instruction and the stack above %rsp.
struct UnwindTestCapture {
  UserRegs regs{};
  std::vector<uint8_t> stack;
  uint64_t ret0 = 0;  // the capturing function's return address
};

// Copies the raw stack as the kernel does for a sample, ASan's redzones included: not checked by
// AddressSanitizer (scripts/ci-sanitize.sh), and byte by byte rather than through its memcpy.
__attribute__((no_sanitize_address)) void unwind_test_copy_stack(uint8_t* to, uint64_t from, size_t n) {
  const volatile uint8_t* p = reinterpret_cast<const volatile uint8_t*>(from);
  for (size_t i = 0; i < n; ++i) to[i] = p[i];
}

__attribute__((noinline)) void unwind_test_capture(UnwindTestCapture& c) {
  uint64_t* r = c.regs.data();
  asm volatile(
      "lea 0(%%rip), %%rax\n\t"
      "mov %%rax, 128(%0)\n\t"  // UNW_X86_64_RIP (16)
      "mov %%rsp, 56(%0)\n\t"   // RSP (7)
      "mov %%rbp, 48(%0)\n\t"   // RBP (6)
      "mov %%rbx, 24(%0)\n\t"   // RBX (3)
      "mov %%r12, 96(%0)\n\t"
      "mov %%r13, 104(%0)\n\t"
      "mov %%r14, 112(%0)\n\t"
      "mov %%r15, 120(%0)\n\t"
      :
      : "r"(r)
      : "rax", "memory");
  const uint64_t sp = c.regs[7];
  const size_t n = std::min<uint64_t>(c.stack.size(), unwind_test_mapping_end(sp) - sp);
  unwind_test_copy_stack(c.stack.data(), sp, n);
  c.stack.resize(n);
  c.ret0 = reinterpret_cast<uint64_t>(__builtin_return_address(0));
}

__attribute__((noinline)) uint64_t unwind_test_caller(UnwindTestCapture& c) {
  unwind_test_capture(c);
  asm volatile("" ::: "memory");  // not a tail call
  return reinterpret_cast<uint64_t>(__builtin_return_address(0));
}

TEST(StackUnwinder, UnwindsACopiedStackWithCfi) {
  UnwindTestCapture c;
  c.stack.resize(kStackCopyBytes);
  uint64_t ret1 = 0;
  std::thread([&] { ret1 = unwind_test_caller(c); }).join();  // a short stack: all of it fits the copy
  StackUnwinder unwinder;
  const auto maps = unwind_test_own_mappings();
  auto callers = unwinder.callers(maps, uint32_t(::getpid()), c.regs, c.stack);
  ASSERT_TRUE(callers.has_value());
  ASSERT_GE(callers->size(), 2u);
  EXPECT_EQ((*callers)[0], c.ret0);
  EXPECT_EQ((*callers)[1], ret1);
  // Without the modules nothing has an FDE: a failure (the sampler keeps the kernel's chain).
  EXPECT_EQ(unwinder.callers({}, uint32_t(::getpid()) + 1, c.regs, c.stack), std::nullopt);
}

}  // namespace
}  // namespace roofprof::survey
