#include "selftest/table.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

namespace roofprof::selftest {
namespace {

// Median and max of measured/expected over the samples; null when a sample lacks the value.
template <class Get>
Ratio ratio_of(const std::vector<Sample>& samples, std::optional<double> expected, Get get) {
  if (!expected || *expected <= 0 || samples.empty()) return {};
  std::vector<double> r;
  for (const Sample& s : samples) {
    std::optional<double> v = get(s);
    if (!v) return {};
    r.push_back(*v / *expected);
  }
  std::sort(r.begin(), r.end());
  size_t m = r.size();
  double median = m % 2 ? r[m / 2] : (r[m / 2 - 1] + r[m / 2]) / 2;
  return Ratio{median, r.back()};
}

Verdict judge_both(const Ratio& r, const Thresholds& t) { return worst(judge(r.median, t), judge(r.max, t)); }

std::string cell(std::optional<double> v) { return v ? fmt::format("{:.3f}", *v) : "n/a"; }

std::string human_bytes(double b) {
  if (b >= 1 << 30) return fmt::format("{:.1f} GiB", b / (1 << 30));
  if (b >= 1 << 20) return fmt::format("{:.1f} MiB", b / (1 << 20));
  if (b >= 1 << 10) return fmt::format("{:.0f} KiB", b / (1 << 10));
  return fmt::format("{:.0f} B", b);
}

nlohmann::ordered_json opt(std::optional<double> v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr); }

nlohmann::ordered_json ratio_json(const Ratio& r) { return {{"median", opt(r.median)}, {"max", opt(r.max)}}; }

bool is_hardware(const std::string& backend) { return backend != "emul" && backend != "time"; }

}  // namespace

JudgedRow judge_row(const Row& row) {
  JudgedRow j;
  j.row = row;
  const sx_kernel& k = *row.c.kernel;
  double n = double(row.c.n);
  j.expected_work = k.work(n);
  if (k.read) j.expected_read = k.read(n);
  if (k.write) j.expected_write = k.write(n);
  // A warm call beyond the LLC whose written operand is a small part of its data (dgemv's y):
  // that operand stays cached between calls, and whether its write-backs reach DRAM during a
  // call depends on the last level's inclusion (an inclusive one evicts it from L1 with A's
  // stream, two or three times a call; a non-inclusive one never), so its Q_w is not judged.
  if (row.c.cache_state == "warm" && row.c.size == SizeClass::BeyondLlc && j.expected_write &&
      *j.expected_write < 0.1 * k.footprint(n))
    j.expected_write = std::nullopt;
  std::optional<double> expected_traffic;
  if (j.expected_read && j.expected_write) expected_traffic = *j.expected_read + *j.expected_write;
  j.work = ratio_of(row.samples, j.expected_work, [](const Sample& s) { return s.work; });
  j.read = ratio_of(row.samples, j.expected_read, [](const Sample& s) { return s.read; });
  j.write = ratio_of(row.samples, j.expected_write, [](const Sample& s) { return s.write; });
  j.traffic = ratio_of(row.samples, expected_traffic, [](const Sample& s) -> std::optional<double> {
    if (!s.read || !s.write) return std::nullopt;
    return *s.read + *s.write;
  });
  j.work_verdict = judge_both(j.work, kWork);
  bool warm_in_llc = row.c.cache_state == "warm" && row.c.size == SizeClass::InLlc;
  const Thresholds& q = warm_in_llc ? kTrafficWarmInLlc : kTraffic;
  j.traffic_verdict = worst(worst(judge_both(j.read, q), judge_both(j.write, q)), judge_both(j.traffic, q));
  j.verdict = worst(j.work_verdict, j.traffic_verdict);
  return j;
}

std::vector<ClassRatio> cross_check(const std::vector<Row>& hardware, const std::vector<Row>& emulation) {
  std::map<std::string, std::pair<double, double>> sums;  // class -> (hardware, emulation), per call
  for (const Row& h : hardware) {
    for (const Row& e : emulation) {
      if (h.c.kernel != e.c.kernel || h.c.n != e.c.n || h.c.cache_state != e.c.cache_state) continue;
      if (h.samples.empty() || e.samples.empty()) continue;
      for (const auto& [cls, v] : h.samples.front().flops_by_class) sums[cls].first += v;
      for (const auto& [cls, v] : e.samples.front().flops_by_class) sums[cls].second += v;
    }
  }
  std::vector<ClassRatio> out;
  for (const auto& [cls, s] : sums) {
    if (s.first == 0 && s.second == 0) continue;
    ClassRatio c{cls, s.first, s.second, std::nullopt};
    if (s.second > 0) c.ratio = s.first / s.second;
    out.push_back(c);
  }
  return out;
}

Report make_report(const std::string& mode, const Plan& plan, const std::vector<std::vector<Row>>& per_backend) {
  Report rep;
  rep.mode = mode;
  rep.llc_bytes = plan.llc_bytes;
  rep.notes = plan.notes;
  const std::vector<Row>* hw = nullptr;
  const std::vector<Row>* emul = nullptr;
  for (const auto& rows : per_backend) {
    if (rows.empty()) continue;
    rep.backends.push_back(rows.front().backend);
    if (rows.front().backend == "emul") emul = &rows;
    else if (is_hardware(rows.front().backend)) hw = &rows;
    bool multiplexed = false;
    for (const Row& r : rows) {
      JudgedRow j = judge_row(r);
      rep.verdict = worst(rep.verdict, j.verdict);
      for (const Sample& s : r.samples) multiplexed |= s.multiplexed;
      // Hardware counting errors, said as what they do to the user's own profiles.
      if (is_hardware(r.backend) && j.work.median && std::fabs(*j.work.median - 1) > kWork.pass)
        rep.notes.push_back(fmt::format(
            "{}: W of {} (n = {}) is {:.3f} x the exact count: W in your profiles of similar code is off by the "
            "same factor{}", r.backend, r.c.kernel->name, r.c.n, *j.work.median,
            emul ? "" : " (run --backend all to see which flop class)"));
      // Frequency drift: the register-only kernel's time per call depends on the clock alone.
      if (!r.c.kernel->read) {
        double lo = INFINITY, hi = 0;
        for (const Sample& s : r.samples) {
          if (s.time_min_s) lo = std::min(lo, *s.time_min_s);
          if (s.time_max_s) hi = std::max(hi, *s.time_max_s);
        }
        // Only calls of 10 ms or more: shorter ones are dominated by the tracer's stops.
        if (lo >= 10e-3 && hi / lo > 1.10)
          rep.notes.push_back(fmt::format(
              "{}: the register-only fma kernel took between {:.3g} and {:.3g} s a call ({:.0f}% apart): the clock "
              "frequency changed or the machine was busy; time and flop/s in your profiles vary as much",
              r.backend, lo, hi, (hi / lo - 1) * 100));
      }
      rep.rows.push_back(std::move(j));
    }
    if (multiplexed)
      rep.notes.push_back(rows.front().backend +
                          ": counters were multiplexed (scaled estimates): profile fewer events at once or expect "
                          "W and Q errors of the size shown above");
  }
  if (hw && emul) rep.classes = cross_check(*hw, *emul);
  for (const ClassRatio& c : rep.classes)
    if (c.ratio && std::fabs(*c.ratio - 1) > kWork.pass)
      rep.notes.push_back(fmt::format("hardware counts {:.3f} x the exact flops in class {}: W of code using that "
                                      "class is off by this factor in your profiles (counter erratum?)",
                                      *c.ratio, c.flop_class));
  return rep;
}

void print_report(const Report& rep, std::FILE* out) {
  fmt::print(out, "roofprof selftest ({}), last-level cache {}: measured / expected per call, median and max over runs\n",
             rep.mode, human_bytes(double(rep.llc_bytes)));
  fmt::print(out, "{:<7} {:<14} {:>9} {:>10} {:<11} {:<5}  {:>13} {:>13} {:>13} {:>13}  {}\n", "backend", "kernel",
             "n", "data", "size", "cache", "W", "Q_r", "Q_w", "Q", "verdict");
  for (const JudgedRow& j : rep.rows) {
    auto two = [](const Ratio& r) { return fmt::format("{:>6} {:>6}", cell(r.median), cell(r.max)); };
    const Case& c = j.row.c;
    fmt::print(out, "{:<7} {:<14} {:>9} {:>10} {:<11} {:<5}  {:>13} {:>13} {:>13} {:>13}  {}\n", j.row.backend,
               c.kernel->name, c.n, human_bytes(c.kernel->footprint(double(c.n))), to_string(c.size), c.cache_state,
               two(j.work), two(j.read), two(j.write), two(j.traffic), to_string(j.verdict));
  }
  fmt::print(out, "(each ratio column: median max; Q is DRAM traffic; warm in LLC expects 0: its Q columns are "
                  "measured / compulsory; n/a: not measured or not expected)\n");
  if (!rep.classes.empty()) {
    fmt::print(out, "\nhardware / emulation W per flop class (same kernels, sizes and cache states)\n");
    for (const ClassRatio& c : rep.classes)
      fmt::print(out, "  {:<10} {:>14.0f} {:>14.0f}  {}\n", c.flop_class, c.hardware, c.emulation, cell(c.ratio));
  }
  for (const auto& n : rep.notes) fmt::print(out, "note: {}\n", n);
  fmt::print(out, "verdict: {}\n", rep.verdict == Verdict::None ? "nothing measured" : to_string(rep.verdict));
}

nlohmann::ordered_json report_json(const Report& rep) {
  using J = nlohmann::ordered_json;
  J rows = J::array();
  for (const JudgedRow& j : rep.rows) {
    const Case& c = j.row.c;
    J samples = J::array();
    for (const Sample& s : j.row.samples)
      samples.push_back({{"W", opt(s.work)}, {"Q_r", opt(s.read)}, {"Q_w", opt(s.write)},
                         {"flops_by_class", s.flops_by_class}, {"multiplexed", s.multiplexed}});
    rows.push_back({{"backend", j.row.backend},
                    {"kernel", c.kernel->name},
                    {"symbol", c.kernel->symbol},
                    {"n", c.n},
                    {"footprint_bytes", c.kernel->footprint(double(c.n))},
                    {"size", c.size == SizeClass::InLlc ? "in_llc" : "beyond_llc"},
                    {"cache_state", c.cache_state},
                    {"expected", {{"W", j.expected_work}, {"Q_r", opt(j.expected_read)}, {"Q_w", opt(j.expected_write)}}},
                    {"samples", samples},
                    {"ratio", {{"W", ratio_json(j.work)}, {"Q_r", ratio_json(j.read)}, {"Q_w", ratio_json(j.write)},
                               {"Q", ratio_json(j.traffic)}}},
                    {"verdict", {{"W", to_string(j.work_verdict)}, {"Q", to_string(j.traffic_verdict)},
                                 {"row", to_string(j.verdict)}}}});
  }
  J classes = J::array();
  for (const ClassRatio& c : rep.classes)
    classes.push_back({{"class", c.flop_class}, {"hardware", c.hardware}, {"emulation", c.emulation}, {"ratio", opt(c.ratio)}});
  return J{{"selftest", 1},
           {"mode", rep.mode},
           {"llc_bytes", rep.llc_bytes},
           {"backends", rep.backends},
           {"rows", rows},
           {"flop_classes", classes},
           {"notes", rep.notes},
           {"verdict", rep.verdict == Verdict::None ? "none" : to_string(rep.verdict)}};
}

}  // namespace roofprof::selftest
