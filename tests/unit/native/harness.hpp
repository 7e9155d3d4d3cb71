#pragma once
// Native counting in this process (docs/native.md, "Tests"): a fixture module loaded with
// dlopen, its code and symbols as the tracer would give them, planned, emitted into scratch
// within rel32 reach and patched; and the calling thread's counting slots.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "native/counting.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::native::test {

std::string fixture_path(const std::string& name);  // FIXTURES_DIR/name

// A module's code, readable data and functions at the addresses its file gives (not loaded).
struct FileImage {
  std::vector<uint8_t> file;
  std::vector<CodeRange> code, data;
  std::vector<Function> functions;
};
FileImage read_file_image(const std::string& path);

class LoadedModule {
 public:
  // dlopen a copy of `path` (its own file, so that several copies load side by side).
  explicit LoadedModule(const std::string& path);
  ~LoadedModule();
  LoadedModule(const LoadedModule&) = delete;
  LoadedModule& operator=(const LoadedModule&) = delete;

  template <class F>
  F* fn(const char* name) const { return reinterpret_cast<F*>(symbol(name)); }
  uint64_t address(const char* name) const { return uint64_t(symbol(name)); }

  const std::vector<CodeRange>& code() const { return code_; }
  const std::vector<CodeRange>& data() const { return data_; }
  const std::vector<Function>& functions() const { return functions_; }
  std::vector<CodeRange> mapped() const;                   // code and data
  uint64_t eh_frame_hdr() const { return eh_frame_hdr_; }  // PT_GNU_EH_FRAME, 0 none

  ModulePlan plan() const;
  // Emits the plan into scratch memory near the module and writes the jumps. `emitted_apart`
  // nonzero: emitted for trampolines that many bytes from the scratch memory, then moved there
  // with rebased(), as a patch kept from another run is.
  void patch(const ModulePlan& plan, int64_t emitted_apart = 0);

 private:
  void* symbol(const char* name) const;

  std::string copy_;
  void* handle_ = nullptr;
  std::vector<std::vector<uint8_t>> code_copies_;
  std::vector<CodeRange> code_, data_;
  std::vector<Function> functions_;
  uint64_t eh_frame_hdr_ = 0;
  void* scratch_ = nullptr;
  size_t scratch_size_ = 0;
};

using Slots = std::array<uint64_t, RP_NATIVE_SLOTS>;
Slots read_slots();                         // this thread's counts
Slots delta(const Slots& before, const Slots& after);
uint64_t total(const Slots& s);            // every class but x87 (the flops of SSE/AVX)

// libnative_plan_cases.so, loaded once for every test file of the module that plans it.
inline LoadedModule& plan_cases() {
  static LoadedModule m(fixture_path("libnative_plan_cases.so"));
  return m;
}

}  // namespace roofprof::native::test
