// Native counting (docs/native.md): when a module is mapped, before its code runs, the tracer
// cuts its functions into counting sites (native::plan_module), maps their trampolines within
// rel32 reach of the module and writes them, then each site's jump. Region probes are placed
// afterwards, on the patched code: every probe site of the module is a block start for the plan,
// so a probe never lands inside a site's copied instructions.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <unistd.h>

#include "common/cache_dir.hpp"
#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/mapped_file.hpp"
#include "common/log.hpp"
#include "common/strings.hpp"
#include "native/counting.hpp"
#include "native/landing_pads.hpp"
#include "native/patch_cache.hpp"
#include "native/eh_frame_hdr.hpp"
#include "tracer/session.hpp"

namespace roofprof::tracer {

namespace {

// The dynamic linker runs while modules load (its code is never patched under it); the agent's
// code is the probes' own.
bool never_counted(const std::string& path) {
  const std::string_view base = path_basename(path);
  return base.starts_with("ld-linux") || base.starts_with("ld64.so") || base == kAgentModule;
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

// The module's plan, made now from its code and data as its file holds them (`file`), with the
// probe addresses `busy`. C++ exception landing pads start blocks too (the unwinder jumps there),
// and the unwind table gives the extents of the functions no symbol names.
native::ModulePlan make_plan(const symbolizer::LoadedModule& m, std::span<const native::CodeRange> code,
                             std::span<const native::CodeRange> data, std::span<const uint8_t> file,
                             std::vector<uint64_t> busy) {
  std::vector<native::CodeRange> mapped(code.begin(), code.end());
  mapped.insert(mapped.end(), data.begin(), data.end());
  std::vector<native::Function> functions;
  for (const auto& s : m.elf->functions())
    if (s.size > 0) functions.push_back({m.bias + s.value, s.size, s.name});
  if (std::optional<uint64_t> eh_frame_hdr = native::eh_frame_hdr_address(file)) {
    *eh_frame_hdr += m.bias;
    for (uint64_t pad : native::landing_pads(mapped, *eh_frame_hdr)) busy.push_back(pad);
    add_unnamed_functions(native::unwind_ranges(mapped, *eh_frame_hdr), functions);
  }
  return native::plan_module(code, functions, busy, data);
}

// The jumps, laid over the module's original bytes and written a stretch at a time: one write
// per run of jumps less than a page apart (a write per jump costs a system call and a page walk
// each: seconds for a BLAS library's 80,000 sites).
void write_jumps(const TraceeMemory& mem, std::span<const native::CodeRange> code,
                 const std::vector<native::Emitted::Jump>& jumps) {
  constexpr uint64_t kGap = 4096;
  std::vector<uint8_t> stretch;
  for (const native::CodeRange& r : code) {
    auto in_range = [&](const native::Emitted::Jump& j) {
      return j.at >= r.address && j.at + j.bytes.size() <= r.address + r.bytes.size();
    };
    auto j = std::find_if(jumps.begin(), jumps.end(), in_range);  // sorted by address, as the plan's sites
    while (j != jumps.end() && in_range(*j)) {
      auto last = j;
      uint64_t hi = j->at + j->bytes.size();
      for (auto k = std::next(j); k != jumps.end() && in_range(*k) && k->at <= hi + kGap; ++k)
        last = k, hi = std::max<uint64_t>(hi, k->at + k->bytes.size());
      const uint64_t lo = j->at;
      stretch.assign(r.bytes.begin() + long(lo - r.address), r.bytes.begin() + long(hi - r.address));
      for (auto k = j; k != std::next(last); ++k) std::copy(k->bytes.begin(), k->bytes.end(), stretch.begin() + long(k->at - lo));
      if (!mem.write(TraceeAddr(lo), stretch.data(), stretch.size()))
        throw UserError(fmt::format("its code at {:#x} cannot be written", lo));
      j = std::next(last);
    }
  }
}

}  // namespace

void Session::count_natively(Task& t, const symbolizer::LoadedModule& m, bool is_main,
                             const std::vector<std::pair<uint64_t, ProbeKind>>& hooks) {
  ThreadGroup& g = *t.group;
  if (!opts_.native_counting || !g.measured || never_counted(m.path)) return;
  // Once per module, not a cost of the probe whose stop it happens in (ProbeBudget::not_probe_cost).
  struct Excluded {
    ProbeBudget& budget;
    int64_t t0 = monotonic_ns();
    ~Excluded() { budget.not_probe_cost(monotonic_ns() - t0); }
  } excluded{budget_};
  native::PatchedModule& done = outcome_.native.emplace_back();
  done.path = m.path;
  // Every probe the module may get, now or later: block starts.
  std::vector<uint64_t> busy;
  for (const auto& [addr, kind] : hooks) busy.push_back(m.bias + addr);
  for (const auto& p : planned_for(g, m, is_main)) busy.push_back(m.bias + p.address);
  // Its code, and its other segments (jump tables are in .rodata), as its file holds them: the
  // module is patched before its code runs or is relocated.
  const MappedFile file(m.path);
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
  // What an earlier run made of the same file with the same probes (native/patch_cache.hpp).
  const auto key = native::patch_key(default_cache_dir(), m.path, busy, m.bias);
  std::optional<native::ModulePatch> kept = key ? native::load_patch(*key, m.bias) : std::nullopt;
  std::optional<native::ModulePlan> plan;
  if (!kept) plan = make_plan(m, code, data, file.bytes(), std::move(busy));
  native::ModulePatch patch = kept ? std::move(*kept) : native::summary_of(*plan);
  done.fp_insns = patch.fp_insns;
  done.uncounted_fp_insns = patch.uncounted_fp_insns;
  done.uncounted = patch.uncounted;
  if (patch.sites == 0) {
    if (plan && key) native::store_patch(*key, patch, m.bias);
    watch_uncounted(t, outcome_.native.size() - 1);
    return;
  }
  try {
    const uint64_t bytes = kept ? patch.emitted.trampolines.size() : plan->trampoline_bytes;
    const uint64_t pages = (bytes + 4095) & ~uint64_t(4095);
    // Where the kept trampolines were relative to the module, if that is free: nothing moves.
    const TraceeAddr base = map_scratch(t, TraceeAddr(code.front().address), pages,
                                        kept ? TraceeAddr(patch.emitted.base) : TraceeAddr());
    if (!base) throw UserError("no memory could be mapped near it for its trampolines");
    if (kept) {
      if (patch.emitted.base != base.value()) patch.emitted = native::rebased(std::move(patch.emitted), 0, base.value());
    } else {
      patch.emitted = native::emit(*plan, code, base.value());
      if (key) native::store_patch(*key, patch, m.bias);
    }
    const native::Emitted& out = patch.emitted;
    if (!g.as->mem().write(base, out.trampolines.data(), out.trampolines.size()))
      throw UserError("its trampolines cannot be written");
    write_jumps(g.as->mem(), code, out.jumps);
    log::line(log::Category::Tracer, "native counting of {}: {} sites, {}, {} bytes of trampolines, in {} us", m.path,
              patch.sites, kept ? "kept from an earlier run" : "planned", out.trampolines.size(),
              (monotonic_ns() - excluded.t0) / 1000);
    done.sites = patch.sites;
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
  native::PatchedModule& nm = outcome_.native[module];
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
