#pragma once
// DWARF CFI unwinding of a sample after the fact: the sample carries the user registers and a
// copy of the top of the user stack (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER); libunwind
// unwinds it with accessors that read the copied stack for addresses inside it and the mapped
// modules' files for the rest, finding each frame's FDE through the module's .eh_frame_hdr
// (docs/survey.md, "Call chains").
#include <sys/types.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "survey/sampler.hpp"

#include "common/mapped_file.hpp"

namespace roofprof::survey {

// The registers sampled, by libunwind's x86-64 numbers (UNW_X86_64_RAX .. UNW_X86_64_RIP).
using UserRegs = std::array<uint64_t, 17>;

// A module file mapped read-only, its PT_LOAD segments and .eh_frame_hdr (link-time addresses).
class ModuleImage {
 public:
  static std::shared_ptr<const ModuleImage> open(const std::string& path);  // nullptr: unreadable, not ELF64
  // The file's bytes at link-time address `vaddr` (within a segment's file part), else nullopt.
  std::optional<uint64_t> read_u64(uint64_t vaddr) const;
  // The link-time address of the segment that holds file offset `offset`, or nullopt.
  std::optional<uint64_t> vaddr_of_offset(uint64_t offset) const;
  uint64_t eh_frame_hdr() const { return eh_frame_hdr_; }  // 0: none
  uint64_t entry() const { return entry_; }                // e_entry
  uint64_t low() const { return low_; }
  uint64_t high() const { return high_; }

 private:
  struct Load {
    uint64_t vaddr, offset, filesz, memsz;
  };
  explicit ModuleImage(const std::string& path) : file_(path) {}
  MappedFile file_;
  std::vector<Load> loads_;
  uint64_t eh_frame_hdr_ = 0, entry_ = 0, low_ = 0, high_ = 0;
};

// A module as one process mapped it: runtime = link-time + bias.
struct PlacedModule {
  std::shared_ptr<const ModuleImage> image;
  uint64_t bias = 0;
  uint64_t exec_start = 0, exec_end = 0;  // the executable mapping (runtime)
};

// What a sample's unwinding reads: the copied stack [sp, sp + stack.size()) first, then the
// process's modules (`modules`: as placed for the sample's process).
class SampleMemory {
 public:
  SampleMemory(uint64_t sp, std::span<const uint8_t> stack, const std::vector<PlacedModule>& modules)
      : sp_(sp), stack_(stack), modules_(modules) {}
  std::optional<uint64_t> read_u64(uint64_t addr) const;
  const PlacedModule* module_at(uint64_t addr) const;  // the module whose image spans addr

 private:
  uint64_t sp_;
  std::span<const uint8_t> stack_;
  const std::vector<PlacedModule>& modules_;
};

class StackUnwinder {
 public:
  StackUnwinder();
  ~StackUnwinder();
  StackUnwinder(const StackUnwinder&) = delete;
  StackUnwinder& operator=(const StackUnwinder&) = delete;

  // The callers' return addresses of a sample, innermost first (at most `depth`), unwound with
  // CFI from `regs` and the copied `stack`. nullopt when the unwinding failed before the
  // outermost frame: a frame with no FDE (except the entry code, which glibc writes without CFI:
  // the outermost frame), a read outside the copy and the modules.
  std::optional<std::vector<uint64_t>> callers(const std::vector<Mapping>& maps, uint32_t pid, const UserRegs& regs,
                                               std::span<const uint8_t> stack, int depth = 256);

  // The modules of `pid` as placed by the mappings seen so far (a forked child's: its parent's).
  const std::vector<PlacedModule>& modules_of(const std::vector<Mapping>& maps, uint32_t pid);

 private:
  void* space_ = nullptr;  // unw_addr_space_t
  std::map<std::string, std::shared_ptr<const ModuleImage>> images_;
  struct PidModules {
    size_t maps_seen = 0;
    std::vector<PlacedModule> modules;
  };
  std::map<uint32_t, PidModules> pids_;
};

}  // namespace roofprof::survey
