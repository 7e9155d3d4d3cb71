#include "ceilings/table.hpp"

#include <fmt/format.h>

#include <optional>

#include "ceilings/check.hpp"
#include "ceilings/knees.hpp"
#include "ceilings/names.hpp"

namespace roofprof::ceilings {
namespace {

std::string spread(const Spread& s, int prec = 1) {
  return fmt::format("{:>9.{}f} [{:.{}f} - {:.{}f}]", s.median, prec, s.min, prec, s.max, prec);
}

std::string theory(const std::optional<double>& t, double measured) {
  if (!t) return fmt::format("{:>11} {:>6}", "-", "-");
  return fmt::format("{:>11.1f} {:>6.3f}", *t, measured / *t);
}

const char* mark(const std::string& flagged) { return flagged.empty() ? "" : "  FLAGGED"; }

// The reasons of the flagged lines (ceilings/check.hpp), after the lines.
std::string flagged_section(const Ceilings& c) {
  std::string out;
  for (const auto& line : flagged_lines(c)) out += "  " + line + "\n";
  if (out.empty()) return out;
  return "\nFLAGGED: inconsistent with the other lines even when measured again (docs/ceilings.md, "
         "\"Sanity check\"); do not use them as roofs:\n" + out;
}

// "caches: L1 48 KiB (measured 40 KiB), ..., L3 480 MiB (measured 32 MiB: used)": reported sizes
// and, where the hierarchy was measured, each level's knee for one thread ("no knee" where none);
// "used" where the measured size replaces the reported one (ceilings/knees.hpp).
std::string caches_line(const Ceilings& c) {
  std::string out;
  for (const auto& g : c.caches) {
    out += fmt::format("{}L{} {}", out.empty() ? "caches: " : ", ", g.level, format_bytes(g.size));
    if (c.measured_caches.empty()) continue;
    std::optional<uint64_t> knee;
    for (const auto& m : c.measured_caches)
      if (m.level == g.level) knee = m.effective_bytes;
    if (!knee) out += " (no knee measured)";
    else out += fmt::format(" (measured {}{})", format_bytes(*knee), measured_size(g, c.measured_caches) ? ": used" : "");
  }
  if (out.empty()) return out;
  return out + (c.measured_caches.empty() ? " (reported)\n" : "; measured: one thread's load-bandwidth knee\n");
}

}  // namespace

std::string format_bytes(uint64_t b) {
  if (b >= (uint64_t(1) << 30) && b % (uint64_t(1) << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (uint64_t(1) << 20)) return fmt::format("{:.4g} MiB", double(b) / (1 << 20));
  if (b >= 1024) return fmt::format("{:.4g} KiB", double(b) / 1024);
  return fmt::format("{} B", b);
}

std::string format_table(const Ceilings& c) {
  std::string out;
  const auto& m = c.method;
  out += fmt::format("{} ({} CPUs, kernel {}, microcode {})\n", c.machine.cpu_model,
                     c.machine.cores, c.machine.kernel,
                     c.machine.microcode.empty() ? "unknown" : c.machine.microcode);
  out += fmt::format("measured {} ({} mode, {:.1f} s): median [min - max] of {} samples of {:g} ms "
                     "after one warm-up; timer {} ({:.0f} ns per start/stop)\n",
                     m.measured_at, name(m.mode), m.seconds, m.samples, m.sample_ms, m.timer,
                     m.timer_overhead_ns);
  out += "theoretical peaks: " +
         (m.core_model.empty() ? std::string("unknown core model, not shown")
                               : m.core_model + " x measured clock x cores") +
         "\n";
  out += caches_line(c);
  for (const auto& f : c.frequency)
    out += fmt::format("clock, {} thread{}: {} GHz\n", f.threads, f.threads > 1 ? "s" : "",
                       spread(f.ghz, 3));

  if (!c.compute.empty()) {
    out += fmt::format("\n{:<22} {:>7} {:>27} {:>11} {:>6} {:>6}\n", "compute (GFlop/s)",
                       "threads", "measured", "theoretical", "ratio", "GHz");
    for (const auto& x : c.compute)
      out += fmt::format("{:<22} {:>7} {:>27} {} {:>6.3f}{}\n",
                         fmt::format("{} {} {}", name(x.isa), name(x.precision), name(x.op)),
                         x.threads, spread(x.gflops), theory(x.theoretical_gflops, x.gflops.median),
                         x.ghz, mark(x.flagged));
  }
  if (!c.bandwidth.empty()) {
    out += fmt::format("\n{:<22} {:>7} {:>11} {:>27} {:>8} {:>8} {:>11} {:>6}\n",
                       "bandwidth (GB/s)", "threads", "working set", "read+write", "read",
                       "write", "theoretical", "ratio");
    for (const auto& x : c.bandwidth)
      out += fmt::format("{:<22} {:>7} {:>11} {:>27} {:>8.1f} {:>8.1f} {}{}\n",
                         fmt::format("{} {} ({})", name(x.level), name(x.kind), name(x.isa)),
                         x.threads, format_bytes(x.working_set_bytes), spread(x.gbytes_per_s),
                         x.read_gbytes_per_s, x.write_gbytes_per_s,
                         theory(x.theoretical_gbytes_per_s, x.gbytes_per_s.median), mark(x.flagged));
  }
  out += flagged_section(c);
  if (!c.latency.empty()) {
    out += fmt::format("\n{:<22} {:>11} {:>27} {:>8}\n", "latency (ns)", "working set",
                       "measured", "cycles");
    for (const auto& x : c.latency)
      out += fmt::format("{:<22} {:>11} {:>27} {:>8.1f}\n", name(x.level),
                         format_bytes(x.working_set_bytes), spread(x.ns, 2), x.cycles);
  }
  if (!c.sweep.empty()) {
    out += fmt::format("\n{:>11} {:>12} {:>12}\n", "sweep", "load GB/s", "latency ns");
    for (const auto& p : c.sweep)
      out += fmt::format("{:>11} {:>12.1f} {:>12.2f}\n", format_bytes(p.working_set_bytes),
                         p.load_gbytes_per_s, p.latency_ns);
  }
  return out;
}

}  // namespace roofprof::ceilings
