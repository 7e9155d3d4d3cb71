#include "tests/unit/native/harness.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace roofprof::native::test {

namespace fs = std::filesystem;

std::string fixture_path(const std::string& name) { return std::string(FIXTURES_DIR) + "/" + name; }

namespace {

std::vector<Function> functions_of(const symbolizer::ElfFile& elf, uint64_t base) {
  std::vector<Function> out;
  for (const auto& s : elf.functions()) out.push_back({base + s.value, s.size, s.name});
  return out;
}

uint64_t page_down(uint64_t a) { return a & ~uint64_t(4095); }
uint64_t page_up(uint64_t a) { return (a + 4095) & ~uint64_t(4095); }

}  // namespace

FileImage read_file_image(const std::string& path) {
  FileImage img;
  std::ifstream in(path, std::ios::binary);
  img.file.assign(std::istreambuf_iterator<char>(in), {});
  auto elf = symbolizer::ElfFile::open(path);
  for (const auto& seg : elf->segments()) {
    CodeRange r{seg.vaddr, std::span<const uint8_t>(img.file.data() + seg.offset, seg.filesz)};
    (seg.exec ? img.code : img.data).push_back(r);
  }
  img.functions = functions_of(*elf, 0);
  return img;
}

LoadedModule::LoadedModule(const std::string& path) {
  static int copies = 0;
  copy_ = (fs::temp_directory_path() / ("rp_native_" + std::to_string(getpid()) + "_" + std::to_string(copies++) + "_" +
                                        fs::path(path).filename().string()))
              .string();
  fs::copy_file(path, copy_, fs::copy_options::overwrite_existing);
  handle_ = dlopen(copy_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) throw std::runtime_error(std::string("dlopen: ") + dlerror());
  link_map* lm = nullptr;
  dlinfo(handle_, RTLD_DI_LINKMAP, &lm);
  const uint64_t base = lm->l_addr;
  auto elf = symbolizer::ElfFile::open(copy_);
  for (const auto& seg : elf->segments()) {
    const auto* live = reinterpret_cast<const uint8_t*>(base + seg.vaddr);
    if (seg.exec) {
      code_copies_.emplace_back(live, live + seg.filesz);
      code_.push_back({base + seg.vaddr, code_copies_.back()});
    } else {
      data_.push_back({base + seg.vaddr, std::span<const uint8_t>(live, seg.filesz)});
    }
  }
  functions_ = functions_of(*elf, base);
  struct Find {
    uint64_t base, hdr;
  } find{base, 0};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        auto* f = static_cast<Find*>(arg);
        if (info->dlpi_addr != f->base) return 0;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME) f->hdr = f->base + info->dlpi_phdr[i].p_vaddr;
        return 1;
      },
      &find);
  eh_frame_hdr_ = find.hdr;
}

std::vector<CodeRange> LoadedModule::mapped() const {
  std::vector<CodeRange> out = code_;
  out.insert(out.end(), data_.begin(), data_.end());
  return out;
}

LoadedModule::~LoadedModule() {
  // The patched module stays loaded (its trampolines with it): code may still point there.
  std::error_code ec;
  fs::remove(copy_, ec);
}

void* LoadedModule::symbol(const char* name) const {
  void* p = dlsym(handle_, name);
  if (!p) throw std::runtime_error(std::string("no symbol ") + name);
  return p;
}

ModulePlan LoadedModule::plan() const { return plan_module(code_, functions_, {}, data_); }

void LoadedModule::patch(const ModulePlan& plan, int64_t emitted_apart) {
  scratch_size_ = page_up(std::max<uint64_t>(plan.trampoline_bytes, 1));
  const uint64_t low = code_.front().address;
  for (uint64_t step = 1; step < 1024 && !scratch_; ++step) {
    const uint64_t at = page_down(low - step * (1u << 20));
    void* p = mmap(reinterpret_cast<void*>(at), scratch_size_, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == MAP_FAILED) continue;
    if (p != reinterpret_cast<void*>(at)) {
      munmap(p, scratch_size_);
      continue;
    }
    scratch_ = p;
  }
  if (!scratch_) throw std::runtime_error("no scratch memory within reach of the module");
  const Emitted e = emitted_apart == 0 ? emit(plan, code_, uint64_t(scratch_))
                                       : rebased(emit(plan, code_, uint64_t(scratch_) + uint64_t(emitted_apart)), 0,
                                                 uint64_t(scratch_));
  std::memcpy(scratch_, e.trampolines.data(), e.trampolines.size());
  mprotect(scratch_, scratch_size_, PROT_READ | PROT_EXEC);
  for (const CodeRange& r : code_) {
    const uint64_t from = page_down(r.address), to = page_up(r.address + r.bytes.size());
    mprotect(reinterpret_cast<void*>(from), to - from, PROT_READ | PROT_WRITE | PROT_EXEC);
  }
  for (const auto& j : e.jumps) std::memcpy(reinterpret_cast<void*>(j.at), j.bytes.data(), j.bytes.size());
  for (const CodeRange& r : code_) {
    const uint64_t from = page_down(r.address), to = page_up(r.address + r.bytes.size());
    mprotect(reinterpret_cast<void*>(from), to - from, PROT_READ | PROT_EXEC);
  }
}

Slots read_slots() {
  Slots s{};
  for (int i = 0; i < RP_NATIVE_SLOTS; ++i) {
    uint64_t off = RP_NATIVE_SLOT_OFFSET(i), v;
    asm volatile("movq %%fs:(%1), %0" : "=r"(v) : "r"(off) : "memory");
    s[i] = v;
  }
  return s;
}

Slots delta(const Slots& before, const Slots& after) {
  Slots d{};
  for (int i = 0; i < RP_NATIVE_SLOTS; ++i) d[i] = after[i] - before[i];
  return d;
}

uint64_t total(const Slots& s) {
  uint64_t t = 0;
  for (int i = 0; i < RP_NATIVE_X87; ++i) t += s[i];
  return t;
}

}  // namespace roofprof::native::test
