// The table of `roofprof report`: regions sorted by total time, each followed by its groups.
#include "report/table.hpp"

#include <fmt/format.h>

#include <cmath>
#include <unordered_map>

#include "report/format.hpp"
#include "report/run_facts.hpp"
#include "report/text_table.hpp"
#include "report/vector_share.hpp"
#include "result/balance.hpp"

namespace roofprof::report {
namespace {

const std::string kUnknown = "-";

std::string seconds_or_dash(const std::optional<double>& s) { return s ? format_seconds(*s) : kUnknown; }

std::string si_plain(double v) { return format_si(v, ""); }
std::string si_bytes(double v) { return format_si(v, "B"); }
std::string percent(double v) { return sig3(v * 100) + "%"; }

std::string time_cell(double s, bool approximate) {
  return (approximate ? "~" : "") + format_seconds(s);
}

std::string quartiles_cell(const Row& row) {
  const auto& q = row.subject.per_call();
  if (!q) return kUnknown;
  return time_cell(q->q1, row.approximate_stats) + " .. " + format_seconds(q->q3);
}

// Backends of the quantities the table shows, for a region row ("" for group rows: theirs).
std::string sources_cell(const Row& row, bool with_cycles) {
  if (row.subject.group) return "";
  std::string out;
  const auto& r = *row.subject.region;
  for (const char* quantity : {"time", "flops", "bytes"})
    if (auto s = source_of(r, quantity))
      out += fmt::format("{}{}={}", out.empty() ? "" : " ", quantity, *s);
  if (with_cycles && row.subject.counters().count("cycles"))
    if (auto s = source_of(r, "counters.cycles")) out += " cycles=" + *s;
  return out.empty() ? kUnknown : out;
}

std::string per_cycle_cell(const Row& row, const View& view) {
  if (row.m.flops_per_cycle) return sig3(*row.m.flops_per_cycle);
  if (view.units == Units::cycles && row.m.y_converted && row.m.gflops && row.m.y)
    return "~" + sig3(*row.m.y);  // time x clock, not counted
  return kUnknown;
}

bool any_expected(const Model& m) {
  for (const auto& r : m.rows)
    if (r.expected_work) return true;
  return false;
}

// Whether any region knows its flops by vector width and precision (emul, or perf's FP events).
bool any_widths(const Model& m) {
  for (const auto& r : m.rows)
    if (!r.subject.group && !width_shares(r.subject.region->flops_by_class).empty()) return true;
  return false;
}

// A region's flops by width ("dp 256b 100%"); "" for a group row (its region's row says it).
std::string widths_cell(const Row& row) {
  if (row.subject.group) return "";
  return width_shares_text(row.subject.region->flops_by_class);
}

bool any_per_cycle(const Model& m) {
  if (m.view.units == Units::cycles) return true;
  for (const auto& r : m.rows)
    if (r.m.flops_per_cycle) return true;
  return false;
}

std::string region_label(const Row& row, bool compare, const Model& m) {
  std::string name = row.subject.group ? "  " + row.subject.group->key : row.subject.region->name;
  if (compare && !row.subject.group) name = m.inputs[size_t(row.input)] + ": " + name;
  return name;
}

// Calls over the ranks: whole numbers as counts, a median between two ranks as a decimal.
std::string count_cell(double v) { return v == std::round(v) ? format_count(v) : sig3(v); }

std::string imbalance_cell(const Spread& s) {
  auto i = s.imbalance();
  return i ? sig3(*i) : kUnknown;
}

// One row per region: min, median and max over the ranks of its time, calls and flops, and
// the load imbalance max/mean of each.
std::string rank_spread_text(const JobSummary& job) {
  using A = TextTable::Align;
  TextTable table({{"region", A::Left},        {"ranks", A::Right},
                   {"time min", A::Right},     {"median", A::Right},
                   {"max", A::Right},          {"max/mean", A::Right},
                   {"calls min", A::Right},    {"median", A::Right},
                   {"max", A::Right},          {"max/mean", A::Right},
                   {"flops min", A::Right},    {"median", A::Right},
                   {"max", A::Right},          {"max/mean", A::Right}});
  for (const auto& s : job.spread) {
    std::vector<std::string> cells{s.region, std::to_string(job.ranks.size()),
                                   s.time_s ? format_seconds(s.time_s->min) : kUnknown,
                                   s.time_s ? format_seconds(s.time_s->median) : kUnknown,
                                   s.time_s ? format_seconds(s.time_s->max) : kUnknown,
                                   s.time_s ? imbalance_cell(*s.time_s) : kUnknown,
                                   count_cell(s.calls.min), count_cell(s.calls.median),
                                   count_cell(s.calls.max), imbalance_cell(s.calls)};
    if (s.flops) {
      for (double v : {s.flops->min, s.flops->median, s.flops->max}) cells.push_back(si_plain(v));
      cells.push_back(imbalance_cell(*s.flops));
    } else {
      cells.insert(cells.end(), 4, kUnknown);
    }
    table.add_row(std::move(cells));
  }
  return "per-rank spread (load imbalance = max/mean over the ranks):\n" + table.render();
}

// Each region's threads when two or more called it: every thread's calls, time and W (up to
// kThreadRows of them), the W of threads without a call, and the spread (max/mean) with the
// flag above result::kImbalanceFlagged.
std::string thread_text(const result::Region& r) {
  constexpr size_t kThreadRows = 32;
  using A = TextTable::Align;
  const result::Balance& b = *r.balance;
  std::string out = fmt::format("threads of {} ({} with calls", r.name, b.threads);
  if (b.time_s && b.time_s->imbalance()) out += fmt::format("; time max/mean {}", sig3(*b.time_s->imbalance()));
  if (b.flops && b.flops->imbalance()) out += fmt::format("; flops max/mean {}", sig3(*b.flops->imbalance()));
  out += result::imbalanced(b) ? "; ! load imbalance" : "";
  out += "):\n";
  if (r.per_thread.size() <= kThreadRows) {
    TextTable table({{"process", A::Right}, {"thread", A::Right}, {"calls", A::Right}, {"time", A::Right},
                     {"flops", A::Right}});
    for (const auto& p : r.per_thread)
      table.add_row({std::to_string(p.process), std::to_string(p.thread), format_count(double(p.calls)),
                     seconds_or_dash(p.time_s), cell_or_dash(p.flops, si_plain)});
    out += table.render();
  } else {
    auto line = [](const char* what, const std::optional<result::Spread>& s, std::string (*f)(double)) {
      return s ? fmt::format("  {}: min {}, median {}, max {}\n", what, f(s->min), f(s->median), f(s->max)) : "";
    };
    out += line("time", b.time_s, format_seconds) + line("flops", b.flops, si_plain);
  }
  if (r.flops_other_threads && *r.flops_other_threads > 0)
    out += fmt::format("  flops of threads without a call of it, while it was open: {}\n",
                       si_plain(*r.flops_other_threads));
  return out;
}

std::string threads_text(const Model& m) {
  std::string out;
  for (const auto& row : m.rows)
    if (!row.subject.group && row.subject.region && row.subject.region->balance)
      out += thread_text(*row.subject.region);
  return out;
}

std::string notes_text(const Model& m) {
  std::string out;
  for (const auto& a : m.abnormal) out += "  ! " + a + "\n";
  for (const auto& n : m.notes) out += "  note: " + n + "\n";
  for (const auto& w : m.warnings) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace

std::string cell_or_dash(const std::optional<double>& v, std::string (*format)(double)) {
  return v ? format(*v) : kUnknown;
}

TableData table_data(const Model& m) {
  using A = TextTable::Align;
  const bool expected = any_expected(m), per_cycle = any_per_cycle(m), widths = any_widths(m);
  const std::string traffic = traffic_label(m.view);
  const std::string perf_unit = m.roofs ? m.roofs->perf_unit
                                        : (m.view.units == Units::cycles ? "flop/cycle" : "GFlop/s");
  TableData t;
  auto col = [&](std::string header, A align) { t.columns.push_back({std::move(header), align}); };
  col("region", A::Left);
  // A job's calls are summed over its ranks; its time is the slowest rank's (report/job.hpp).
  col(m.job ? "calls(sum)" : "calls", A::Right);
  col(m.job ? "total(max rank)" : "total", A::Right);
  col("median/call", A::Right);
  col("q1 .. q3", A::Left);
  col("flops", A::Right);
  if (expected) col("expected", A::Right);
  if (widths) col("flops by width", A::Left);
  col("bytes@" + traffic, A::Right);
  col("flop/B@" + traffic, A::Right);
  col("GFlop/s", A::Right);
  if (per_cycle) col("flop/cyc", A::Right);
  col("bound " + perf_unit, A::Right);
  col("of bound", A::Right);
  col("bound by", A::Left);
  col("sources", A::Left);
  for (const auto& row : m.rows) {
    const auto& q = row.subject.per_call();
    auto number = [](const std::optional<double>& v, std::string (*f)(double)) {
      return Cell{cell_or_dash(v, f), v};
    };
    std::vector<Cell> cells{
        Cell{region_label(row, m.compare, m), std::nullopt},
        Cell{format_count(double(row.subject.calls())), double(row.subject.calls())},
        Cell{seconds_or_dash(row.subject.time_s()), row.subject.time_s()},
        Cell{q ? time_cell(q->median, row.approximate_stats) : kUnknown,
             q ? std::optional(q->median) : std::nullopt},
        Cell{quartiles_cell(row), q ? std::optional(q->q1) : std::nullopt},
        number(row.m.work, si_plain)};
    if (expected) cells.push_back(number(row.expected_work, si_plain));
    if (widths) cells.push_back(Cell{widths_cell(row), std::nullopt});
    cells.push_back(number(row.m.traffic, si_bytes));
    cells.push_back(number(row.m.intensity, sig3));
    cells.push_back(number(row.m.gflops, sig3));
    if (per_cycle) cells.push_back(Cell{per_cycle_cell(row, m.view), row.m.flops_per_cycle});
    cells.push_back(number(row.m.bound, sig3));
    cells.push_back(number(row.m.fraction, percent));
    cells.push_back(Cell{row.m.bound_by.empty() ? kUnknown : row.m.bound_by, std::nullopt});
    cells.push_back(Cell{sources_cell(row, per_cycle), std::nullopt});
    t.rows.push_back(std::move(cells));
    t.group_row.push_back(row.subject.group != nullptr);
  }
  return t;
}

std::string render_table(const Model& m) {
  TableData data = table_data(m);
  TextTable table(data.columns);
  for (const auto& cells : data.rows) {
    std::vector<std::string> text;
    for (const auto& c : cells) text.push_back(c.text);
    table.add_row(std::move(text));
  }
  std::string out = m.headline + "\n";
  out += m.rows.empty() ? "no regions were measured\n" : table.render();
  if (m.job && !m.rows.empty()) out += rank_spread_text(*m.job);
  out += threads_text(m);
  return out + notes_text(m);
}

std::string notes_block(const Model& m) { return notes_text(m); }

namespace {

std::string letter(size_t i) { return std::string(1, char('A' + i % 26)); }

std::string ratio(const std::optional<double>& b, const std::optional<double>& a) {
  if (!a || !b || *a <= 0) return kUnknown;
  return sig3(*b / *a) + "x";
}

// Rows of every input with the same region (name, kind) and group key, in first-seen order.
std::vector<std::vector<const Row*>> matched_rows(const Model& m) {
  std::vector<std::vector<const Row*>> out;
  std::unordered_map<std::string, size_t> index;
  for (const auto& row : m.rows) {
    std::string key = row.subject.region->kind + '\x1f' + row.subject.region->name + '\x1f' +
                      (row.subject.group ? "g" + row.subject.group->key : "");
    auto [it, fresh] = index.try_emplace(key, out.size());
    if (fresh) out.emplace_back(m.inputs.size(), nullptr);
    out[it->second][size_t(row.input)] = &row;
  }
  return out;
}

}  // namespace

std::string render_compare_table(const Model& m) {
  using A = TextTable::Align;
  std::vector<TextTable::Column> cols{{"region", A::Left}};
  const size_t n = m.inputs.size();
  for (const char* what : {"calls", "total", "GFlop/s", "flop/B"})
    for (size_t i = 0; i < n; ++i) cols.push_back({std::string(what) + " " + letter(i), A::Right});
  for (const char* what : {"time", "P", "I"})
    for (size_t i = 1; i < n; ++i)
      cols.push_back({std::string(what) + " " + letter(i) + "/A", A::Right});
  TextTable table(cols);
  for (const auto& rows : matched_rows(m)) {
    const Row* any = nullptr;
    for (const auto* r : rows) any = any ? any : r;
    std::vector<std::string> cells{any->subject.group ? "  " + any->subject.group->key
                                                      : any->subject.region->name};
    auto each = [&](auto get) {
      for (const auto* r : rows) cells.push_back(r ? get(*r) : kUnknown);
    };
    each([](const Row& r) { return format_count(double(r.subject.calls())); });
    each([](const Row& r) { return seconds_or_dash(r.subject.time_s()); });
    each([](const Row& r) { return cell_or_dash(r.m.gflops, sig3); });
    each([](const Row& r) { return cell_or_dash(r.m.intensity, sig3); });
    auto ratios = [&](auto get) {
      for (size_t i = 1; i < n; ++i)
        cells.push_back(rows[0] && rows[i] ? ratio(get(*rows[i]), get(*rows[0])) : kUnknown);
    };
    ratios([](const Row& r) { return r.subject.time_s(); });
    ratios([](const Row& r) { return r.m.gflops; });
    ratios([](const Row& r) { return r.m.intensity; });
    table.add_row(std::move(cells));
  }
  std::string out = m.headline + "\n";
  for (size_t i = 0; i < n; ++i) out += fmt::format("  {} = {}\n", letter(i), m.inputs[i]);
  out += m.rows.empty() ? "no regions were measured\n" : table.render();
  return out + notes_text(m);
}

}  // namespace roofprof::report
