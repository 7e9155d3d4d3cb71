// Native counting (docs/native.md): when a module is mapped, before its code runs, the tracer
// cuts its functions into counting sites (native::plan_module), maps their trampolines within
// rel32 reach of the module and writes them, then each site's jump. Region probes are placed
// afterwards, on the patched code: every probe site of the module is a block start for the plan,
// so a probe never lands inside a site's copied instructions.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cache_dir.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"
#include "native/counting.hpp"
#include "native/landing_pads.hpp"
#include "native/plan_cache.hpp"
#include "native/eh_frame_hdr.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The dynamic linker runs while modules load (its code is never patched under it); the agent's
// code is the probes' own.
bool never_counted(const std::string& path) {
  const std::string_view base = path_basename(path);
  return starts_with(base, "ld-linux") || starts_with(base, "ld64.so") || base == kAgentModule;
}

// Functions no symbol names: static functions of a library stripped to its dynamic symbols
// (Debian's libopenblas: dscal_k_HASWELL calls its vector kernel, which has no name). Their
// extents come from the unwind table, so that only code is decoded (never constants between
// functions); each is named after the symbol before it.
void add_unnamed_functions(std::span<const native::CodeExtent> extents, std::vector<native::Function>& functions) {
  std::vector<native::Function> named = functions;
  std::sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (const native::CodeExtent& e : extents) {
    const uint64_t start = e.start;
    auto after = std::upper_bound(named.begin(), named.end(), start,
                                  [](uint64_t a, const native::Function& f) { return a < f.start; });
    if (after != named.begin() && std::prev(after)->start + std::prev(after)->size > start) continue;  // named
    if (after != named.end() && after->start < start + e.size) continue;  // overlaps a named one
    const std::string before = after == named.begin() ? "the module's start" : std::prev(after)->name;
    functions.push_back({start, e.size, fmt::format("a function after {}", before)});
  }
}

// The module's plan: kept on disk from an earlier run (native/plan_cache.hpp), or made now.
// `mapped`: its code and data; `eh_frame_hdr`: its unwind table's runtime address, if it has one.
native::ModulePlan plan_of(const symbolizer::LoadedModule& m, std::span<const native::CodeRange> code,
                           std::span<const native::CodeRange> data, std::span<const native::CodeRange> mapped,
                           std::optional<uint64_t> eh_frame_hdr, std::span<const uint64_t> busy) {
  const auto key = native::plan_key(default_cache_dir(), m.path, busy, m.bias);
  if (key)
    if (auto kept = native::load_plan(*key, m.bias)) return std::move(*kept);
  std::vector<native::Function> functions;
  for (const auto& s : m.elf->functions())
    if (s.size > 0) functions.push_back({m.bias + s.value, s.size, s.name});
  if (eh_frame_hdr) add_unnamed_functions(native::unwind_ranges(mapped, *eh_frame_hdr), functions);
  native::ModulePlan plan = native::plan_module(code, functions, busy, data);
  if (key) native::store_plan(*key, plan, m.bias);
  return plan;
}

// A module's file, mapped privately (copy on write: the jumps are applied to it page by page).
class FileImage {
 public:
  explicit FileImage(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0) return;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) data_ = {static_cast<uint8_t*>(p), size_t(st.st_size)};
    }
    ::close(fd);
  }
  ~FileImage() {
    if (!data_.empty()) ::munmap(data_.data(), data_.size());
  }
  FileImage(const FileImage&) = delete;
  FileImage& operator=(const FileImage&) = delete;
  bool ok() const { return !data_.empty(); }
  std::span<const uint8_t> bytes() const { return data_; }

 private:
  std::span<uint8_t> data_;
};

// The jumps, applied to a copy of the code and written a stretch at a time: one write per run
// of jumps less than a page apart (a write per jump costs a system call and a page walk each:
// seconds for a BLAS library's 80,000 sites).
void write_jumps(const TraceeMemory& mem, std::span<const native::CodeRange> code,
                 const std::vector<native::Emitted::Jump>& jumps) {
  constexpr uint64_t kGap = 4096;
  for (const native::CodeRange& r : code) {
    // The module's own copy (a private mapping of its file, or what was read): patched in place.
    std::span<uint8_t> patched(const_cast<uint8_t*>(r.bytes.data()), r.bytes.size());
    uint64_t lo = UINT64_MAX, hi = 0;
    auto flush = [&] {
      if (lo < hi && !mem.write(TraceeAddr(lo), patched.data() + (lo - r.address), hi - lo))
        throw UserError(fmt::format("its code at {:#x} cannot be written", lo));
      lo = UINT64_MAX, hi = 0;
    };
    for (const auto& j : jumps) {  // sorted by address, as the plan's sites
      if (j.at < r.address || j.at + j.bytes.size() > r.address + r.bytes.size()) continue;
      if (lo != UINT64_MAX && j.at > hi + kGap) flush();
      std::copy(j.bytes.begin(), j.bytes.end(), patched.begin() + (j.at - r.address));
      lo = std::min(lo, j.at);
      hi = std::max<uint64_t>(hi, j.at + j.bytes.size());
    }
    flush();
  }
}

}  // namespace

void Session::count_natively(Task& t, const symbolizer::LoadedModule& m, bool is_main,
                             const std::vector<std::pair<uint64_t, ProbeKind>>& hooks) {
  ThreadGroup& g = *t.group;
  if (!opts_.native_counting || !g.measured || never_counted(m.path)) return;
  // Once per module, not a cost of the probe whose stop it happens in (session_cost.cpp).
  struct Excluded {
    int64_t& total;
    int64_t t0 = monotonic_ns();
    ~Excluded() { total += monotonic_ns() - t0; }
  } excluded{not_probe_cost_ns_};
  NativeModule& done = outcome_.native.emplace_back();
  done.path = m.path;
  // Every probe the module may get, now or later: block starts.
  std::vector<uint64_t> busy;
  for (const auto& [addr, kind] : hooks) busy.push_back(m.bias + addr);
  for (const auto& p : planned_for(g, m, is_main)) busy.push_back(m.bias + p.address);
  // Its code, and its other segments (jump tables are in .rodata), as its file holds them: the
  // module is patched before its code runs or is relocated (a private mapping, no copy).
  const FileImage file(m.path);
  if (!file.ok()) {
    done.failure = "its file cannot be read";
    return;
  }
  std::vector<native::CodeRange> code, data;
  for (const auto& seg : m.elf->segments()) {
    if (seg.filesz == 0 || seg.offset > file.bytes().size() || seg.filesz > file.bytes().size() - seg.offset) continue;
    (seg.exec ? code : data).push_back({m.bias + seg.vaddr, file.bytes().subspan(seg.offset, seg.filesz)});
  }
  if (code.empty()) return;
  // C++ exception landing pads start blocks: the unwinder jumps there.
  std::vector<native::CodeRange> mapped = code;
  mapped.insert(mapped.end(), data.begin(), data.end());
  std::optional<uint64_t> eh_frame_hdr = native::eh_frame_hdr_address(file.bytes());
  if (eh_frame_hdr) {
    *eh_frame_hdr += m.bias;
    for (uint64_t pad : native::landing_pads(mapped, *eh_frame_hdr)) busy.push_back(pad);
  }
  native::ModulePlan plan = plan_of(m, code, data, mapped, eh_frame_hdr, busy);
  done.fp_insns = plan.fp_insns;
  done.uncounted_fp_insns = plan.uncounted_fp_insns;
  done.uncounted = std::move(plan.uncounted);
  if (plan.sites.empty()) {
    watch_uncounted(t, outcome_.native.size() - 1);
    return;
  }
  try {
    const uint64_t pages = (plan.trampoline_bytes + 4095) & ~uint64_t(4095);
    const TraceeAddr base = map_scratch(t, TraceeAddr(code.front().address), pages);
    if (!base) throw UserError("no memory could be mapped near it for its trampolines");
    native::Emitted out = native::emit(plan, code, base.value());
    if (!g.as->mem().write(base, out.trampolines.data(), out.trampolines.size()))
      throw UserError("its trampolines cannot be written");
    write_jumps(g.as->mem(), code, out.jumps);
    done.sites = plan.sites.size();
    watch_uncounted(t, outcome_.native.size() - 1);
  } catch (const UserError& e) {
    // Jumps already written stay: their trampolines are complete. Those not written count nothing.
    done.failure = e.what();
    done.uncounted_fp_insns = done.fp_insns;
  }
}

// A one-shot breakpoint at the start of each place native counting could not patch: the run
// then says which of them ran (their flops are missing from W), not every place that might.
void Session::watch_uncounted(Task& t, size_t module) {
  NativeModule& nm = outcome_.native[module];
  nm.ran.assign(nm.uncounted.size(), -1);
  for (size_t k = 0; k < nm.uncounted.size(); ++k) {
    Probe p;
    p.kind = ProbeKind::NativeUncounted;
    p.site = (uint64_t(module) << 32) | k;
    try {
      if (t.group->as->add_probe(TraceeAddr(nm.uncounted[k].start), p,
                                 [&](TraceeAddr near, size_t size) { return map_scratch(t, near, size); }))
        nm.ran[k] = 0;
    } catch (const UserError&) {
      // an instruction the out-of-line step cannot run: not watched (-1)
    }
  }
}

void Session::uncounted_ran(Task& t, TraceeAddr at, const Probe& p) {
  const size_t module = size_t(p.site >> 32), k = size_t(p.site & 0xffffffffu);
  if (module < outcome_.native.size() && k < outcome_.native[module].ran.size()) outcome_.native[module].ran[k] = 1;
  t.group->as->remove_probe(at, p);
}

}  // namespace roofprof::tracer
