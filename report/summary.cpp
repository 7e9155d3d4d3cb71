// The perf-stat-like summary printed to stderr after `roofprof run`.
#include "report/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fmt/ranges.h>
#include <set>

#include "common/strings.hpp"
#include "result/balance.hpp"
#include "report/format.hpp"
#include "report/run_facts.hpp"
#include "report/text_table.hpp"

namespace roofprof::report {
namespace {

// "     value  label                        note": the value right-aligned as perf stat does.
std::string quantity_line(const std::string& value, const std::string& label,
                          const std::string& note) {
  std::string line = fmt::format("  {:>18}  {:<28}  {}", value, label, note);
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

std::string backend_note(const std::optional<std::string>& source, bool scaled) {
  std::string note = source ? *source : "";
  if (scaled) note += note.empty() ? "scaled estimate" : ", scaled estimate";
  return note;
}

// "never found" (no site was ever placed) is not "found, never called".
std::string region_heading(const result::Region& r) {
  if (r.calls == 0 && r.locations.empty())
    return fmt::format("  {} ({}): never found (no module the program loaded has it)\n", r.name, r.kind);
  if (r.calls == 0 && !r.calls_approximate.empty())
    return fmt::format("  {} ({}): found; its calls were not counted (below)\n", r.name, r.kind);
  if (r.calls == 0) return fmt::format("  {} ({}): found, never entered\n", r.name, r.kind);
  return fmt::format("  {} ({}): {} {}, {} {}\n", r.name, r.kind, format_count(double(r.calls)),
                     r.calls == 1 ? "call" : "calls", r.threads,
                     r.threads == 1 ? "thread" : "threads");
}

std::string time_lines(const result::Region& r) {
  auto source = source_of(r, "time");
  if (!r.time_s) return quantity_line("not measured", "total time", "no native run timed the calls");
  std::string note = backend_note(source, false);
  // Compensation worth a mention: 1 % of the measured time or more.
  if (const auto& c = r.compensation; c && c->subtracted_s() >= 0.01 * c->time_measured_s)
    note += fmt::format("{}compensated: {} measured less {} of in-process probes' own time", note.empty() ? "" : "; ",
                        format_seconds(c->time_measured_s), format_seconds(c->subtracted_s()));
  std::string out = quantity_line(format_seconds(*r.time_s), "total time", note);
  const auto& t = r.time_per_call_s;
  if (t && r.calls > 1)  // one call: the total says it all
    out += quantity_line(
        format_seconds(t->median), "median per call",
        fmt::format("q1 {}, q3 {}, min {}, max {}", format_seconds(t->q1), format_seconds(t->q3),
                    format_seconds(t->min), format_seconds(t->max)));
  return out;
}

std::string counter_line(const result::Region& r, const std::string& event,
                         const std::optional<double>& value) {
  auto source = source_of(r, "counters." + event);
  if (!value) return quantity_line("not counted", event, backend_note(source, false));
  if (is_nanosecond_event(event))
    return quantity_line(format_msec(*value) + " msec", event,
                         backend_note(source, r.counters_multiplexed));
  return quantity_line(format_count(*value), event, backend_note(source, r.counters_multiplexed));
}

// Counters in the run's event order, then any others the region has.
std::string counter_lines(const result::Run& run, const result::Region& r) {
  std::string out;
  std::set<std::string> shown;
  for (const auto& event : run.events)
    if (auto it = r.counters.find(event); it != r.counters.end() && shown.insert(event).second)
      out += counter_line(r, event, it->second);
  for (const auto& [event, value] : r.counters)
    if (shown.insert(event).second) out += counter_line(r, event, value);
  return out;
}

std::string work_lines(const result::Region& r) {
  std::string out;
  if (r.instructions)
    out += quantity_line(format_count(*r.instructions), "instructions",
                         backend_note(source_of(r, "instructions"), false));
  if (r.flops) {
    std::string label = "flops";
    if (auto p = flops_per_second(r)) label += fmt::format(" ({} GFlop/s)", sig3(*p / 1e9));
    out +=
        quantity_line(format_si(*r.flops, ""), label, backend_note(source_of(r, "flops"), false));
  }
  for (const auto& [level, b] : r.bytes) {
    if (!b.read && !b.write) continue;  // level not measured at all
    auto part = [](const std::optional<double>& v) { return v ? format_si(*v, "B") : "unknown"; };
    auto total = total_bytes(r, level);
    out += quantity_line(total ? format_si(*total, "B") : "-", "bytes " + level,
                         fmt::format("read {}, write {}{}", part(b.read), part(b.write),
                                     source_of(r, "bytes") ? "; " + *source_of(r, "bytes") : ""));
  }
  return out;
}

// "min .. max" of one quantity over the threads, with its median and imbalance (max / mean).
std::string spread_line(const result::Spread& s, std::string (*format)(double), const std::string& label) {
  const auto i = s.imbalance();
  return quantity_line(format(s.min) + " .. " + format(s.max), label,
                       fmt::format("median {}, max/mean {}", format(s.median), i ? sig3(*i) : "n/a"));
}

std::string seconds_text(double s) { return format_seconds(s); }

// "time 1.02x, flops 1.78x": max / mean of each quantity known.
std::string imbalance_text(const result::Balance& b) {
  std::string out;
  for (const auto& [what, s] : {std::pair{"time", &b.time_s}, std::pair{"flops", &b.flops}})
    if (*s && (*s)->imbalance()) out += fmt::format("{}{} {}x", out.empty() ? "" : ", ", what, sig3(*(*s)->imbalance()));
  return out;
}
std::string flops_text(double v) { return format_si(v, ""); }

// Threads: how time and W spread over the threads that called the region (flagged when the
// busiest has more than kImbalanceFlagged times the mean), and the work of threads that had no
// call of it open.
std::string thread_lines(const result::Region& r) {
  std::string out;
  if (const auto& b = r.balance) {
    if (b->time_s) out += spread_line(*b->time_s, seconds_text, "time per thread");
    if (b->flops) out += spread_line(*b->flops, flops_text, "flops per thread");
  }
  if (r.flops_other_threads && *r.flops_other_threads > 0)
    out += quantity_line(format_si(*r.flops_other_threads, ""), "flops, other threads",
                         "threads without a call of it, while it was open (included above)");
  if (r.balance && result::imbalanced(*r.balance))
    out += fmt::format("  ! load imbalance over its {} threads (the busiest thread against the mean): {}\n",
                       r.balance->threads, imbalance_text(*r.balance));
  return out;
}

// The functions a function region covers, when that is not just the one its name says:
// "covers kern_axpy, kern_axpy.constprop.0 (run_clones)".
std::string covers_line(const result::Region& r) {
  std::vector<std::string> symbols;
  std::set<std::string> modules;
  for (const auto& l : r.locations) {
    if (l.role != "entry" || l.symbol.empty()) continue;
    if (std::find(symbols.begin(), symbols.end(), l.symbol) == symbols.end()) symbols.push_back(l.symbol);
    modules.insert(std::string(path_basename(l.module)));
  }
  if (symbols.empty() || (symbols.size() == 1 && symbols[0] == r.name)) return "";
  constexpr size_t kShown = 8;
  std::string list;
  for (size_t i = 0; i < symbols.size() && i < kShown; ++i) list += (i ? ", " : "") + symbols[i];
  if (symbols.size() > kShown) list += fmt::format(" and {} more", symbols.size() - kShown);
  return fmt::format("    covers {} ({})\n", list, fmt::join(modules, ", "));
}

// Breakpoints that cost much of the run: its times include them; probing may have stopped.
std::string probe_cost_line(const result::Region& r) {
  if (!r.probe_cost) return "";
  const result::ProbeCost& c = *r.probe_cost;
  std::string line = fmt::format("times include about {} of probe overhead ({} ptrace stops, estimated)",
                                 format_seconds(c.estimated_s), format_count(double(c.ptrace_stops)));
  if (c.stopped_at_s)
    line += fmt::format("; probing stopped {} into the run: calls after that are not counted",
                        format_seconds(*c.stopped_at_s));
  return line;
}

// The region's groups (run --group-by: by arguments or by caller), one row each as report
// shows them: calls, time, W and P where measured ("-" where not).
std::string group_lines(const result::Region& r) {
  if (r.groups.empty()) return "";
  const bool by_caller = !r.groups.front().call_path.empty();
  TextTable t({{by_caller ? "by caller" : "by arguments"},
               {"calls", TextTable::Align::Right},
               {"total", TextTable::Align::Right},
               {"median/call", TextTable::Align::Right},
               {"flops", TextTable::Align::Right},
               {"GFlop/s", TextTable::Align::Right}});
  const bool timed = r.time_s.has_value();  // an emulated rank's calls have no clock
  for (const auto& g : r.groups) {
    std::optional<double> p;
    if (timed && g.flops && g.time_s > 0) p = *g.flops / g.time_s / 1e9;
    t.add_row({g.key, format_count(double(g.calls)), timed && g.calls ? format_seconds(g.time_s) : "-",
               g.time_per_call_s ? format_seconds(g.time_per_call_s->median) : "-",
               g.flops ? format_si(*g.flops, "") : "-", p ? sig3(*p) : "-"});
  }
  return t.render("    ");
}

std::string region_block(const result::Run& run, const result::Region& r) {
  std::string out = region_heading(r) + covers_line(r);
  for (const auto& why : r.calls_approximate) out += "  ! calls approximate: " + why + "\n";
  if (r.calls == 0) return out;  // nothing was measured inside it
  out += time_lines(r);
  out += counter_lines(run, r);
  out += work_lines(r);
  out += thread_lines(r);
  out += group_lines(r);
  if (std::string closes = abnormal_closes(r); !closes.empty()) out += "  ! " + closes + "\n";
  if (std::string cost = probe_cost_line(r); !cost.empty()) out += "  ! " + cost + "\n";
  return out;
}

// What draining the in-process agent's records cost roofprof (result: agent_reader).
std::string reader_line(const result::Run& run) {
  if (!run.agent_reader) return "";
  const result::AgentReader& r = *run.agent_reader;
  return fmt::format("  roofprof's reader of the in-process records: {} of CPU, slept {} times ({} woken by a ring "
                     "filling up or a process ending)\n",
                     format_seconds(r.cpu_s), r.sleeps, r.rings);
}

}  // namespace

void print_summary(const result::Run& run, std::FILE* out) {
  std::string text = "\nroofprof: " + run_headline(run) + "\n";
  if (run.regions.empty()) text += "  no regions were measured\n";
  for (const auto& r : run.regions) text += "\n" + region_block(run, r);
  if (std::string reader = reader_line(run); !reader.empty()) text += "\n" + reader;
  if (!run.warnings.empty()) text += "\n";
  for (const auto& w : run.warnings) text += "  warning: " + w + "\n";
  text += "\n";
  fmt::print(out, "{}", text);
}

}  // namespace roofprof::report
