#include "report/model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>

#include "common/error.hpp"
#include "report/run_facts.hpp"
#include "result/quantiles.hpp"
#include "signatures/builtin.hpp"

namespace roofprof::report {
namespace {

// Precision of most of the flops (by flops_by_class); double when unknown.
ceilings::Precision data_precision(const std::vector<const result::Run*>& runs) {
  double sp = 0, dp = 0;
  for (const auto* run : runs)
    for (const auto& r : run->regions)
      for (const auto& [cls, v] : r.flops_by_class) (cls.rfind("sp", 0) == 0 ? sp : dp) += v;
  return sp > dp ? ceilings::Precision::sp : ceilings::Precision::dp;
}

std::optional<double> clock_for_cycles(const Roofs& roofs, const ceilings::Ceilings& c) {
  for (const auto& f : c.frequency)
    if (f.threads == roofs.threads && f.ghz.max > 0) return f.ghz.max;
  for (const auto& x : c.compute)
    if (x.threads == roofs.threads && x.ghz > 0) return x.ghz;
  return std::nullopt;
}

const signatures::WorkFormula* user_formula(const std::vector<signatures::WorkFormula>& work,
                                            const std::string& region) {
  for (const auto& w : work)
    if (w.function == region) return &w;
  return nullptr;
}

double evaluate(const signatures::Expr& e, const std::map<std::string, double>& params,
                const std::string& region, const std::string& key) {
  try {
    return e.eval(params);
  } catch (const UserError& err) {
    throw UserError(fmt::format("--work for {} (group {}): {}", region, key, err.what()));
  }
}

// Expected flops of a group: --work, else the result's, else the built-in formula.
void expected_for_group(Row& row, const std::vector<signatures::WorkFormula>& work) {
  const auto& g = *row.subject.group;
  const std::string& name = row.subject.region->name;
  if (const auto* w = user_formula(work, name)) {
    row.expected_work = double(g.calls) * evaluate(w->expr, g.params, name, g.key);
    row.expected_from = w->expr.text() + " per call (--work)";
  } else if (g.expected_work) {
    row.expected_work = g.expected_work;
    row.expected_from = "result";
  } else if (const auto* sig = signatures::find_builtin(name); sig && !sig->work.empty()) {
    auto e = signatures::Expr::parse(sig->work);
    row.expected_work = double(g.calls) * evaluate(e, g.params, name, g.key);
    row.expected_from = sig->work + " per call (built-in formula)";
  }
}

// A region's expected flops: a constant --work formula times its calls, else the sum over its
// groups when every group has one.
void expected_for_region(Row& row, const std::vector<Row>& groups,
                         const std::vector<signatures::WorkFormula>& work,
                         std::vector<std::string>& notes) {
  const auto& r = *row.subject.region;
  if (const auto* w = user_formula(work, r.name)) {
    if (w->expr.names().empty()) {
      row.expected_work = double(r.calls) * w->expr.eval({});
      row.expected_from = w->expr.text() + " per call (--work)";
      return;
    }
    if (r.groups.empty())
      notes.push_back(fmt::format("--work {}: its calls were not grouped by arguments, so the "
                                  "formula has no parameters to use",
                                  r.name));
  }
  if (groups.empty()) return;
  double sum = 0;
  for (const auto& g : groups) {
    if (!g.expected_work) return;
    sum += *g.expected_work;
  }
  row.expected_work = sum;
  row.expected_from = groups.front().expected_from;
}

// I of every region and group in each merged file, by kind + subject key (built once).
using IntensityIndex = std::unordered_map<std::string, std::vector<double>>;

IntensityIndex index_intensities(const Merged& merged, const View& view) {
  IntensityIndex out;
  if (merged.inputs.size() < 2) return out;
  auto add = [&](const std::string& key, const Subject& s) {
    auto q = traffic(s.bytes(), view.level, view.rw);
    if (s.flops() && q && *q > 0) out[key].push_back(*s.flops() / *q);
  };
  for (const auto* in : merged.inputs)
    for (const auto& r : in->run.regions) {
      add(r.kind + '\x1f' + subject_key(r.name), Subject{&r, nullptr});
      for (const auto& g : r.groups) add(r.kind + '\x1f' + subject_key(r.name, g.key), Subject{&r, &g});
    }
  return out;
}

// q1 and q3 of I over the files that have the subject (2 or more).
void intensity_spread(Row& row, const IntensityIndex& index) {
  auto it = index.find(row.subject.region->kind + '\x1f' +
                       subject_key(row.subject.region->name, row.subject.group_key()));
  if (it == index.end() || it->second.size() < 2) return;
  std::vector<double> values = it->second;
  auto st = result::five_numbers(values);
  row.x_lo = st->q1;
  row.x_hi = st->q3;
}

template <class T>
std::vector<const T*> by_time(const std::vector<T>& items) {
  std::vector<const T*> out;
  for (const auto& x : items) out.push_back(&x);
  std::stable_sort(out.begin(), out.end(), [](const T* a, const T* b) {
    if (a->time_s != b->time_s) return a->time_s > b->time_s;
    if constexpr (requires { a->name; }) return a->name < b->name;
    else return a->key < b->key;
  });
  return out;
}

// Groups in the order of their parameters (sizes ascending), as a series reads.
std::vector<const result::Group*> by_size(const std::vector<result::Group>& groups) {
  std::vector<const result::Group*> out;
  for (const auto& g : groups) out.push_back(&g);
  std::stable_sort(out.begin(), out.end(), [](const result::Group* a, const result::Group* b) {
    std::vector<double> va, vb;
    for (const auto& [k, v] : a->params) va.push_back(v);
    for (const auto& [k, v] : b->params) vb.push_back(v);
    if (va != vb) return va < vb;
    return a->key < b->key;
  });
  return out;
}

struct Context {
  const ModelOptions& options;
  const Roofs* roofs;
  std::optional<double> ghz;
};

void add_rows(Model& model, const result::Run& run, int input, const Merged* merged,
              const Context& ctx) {
  const IntensityIndex intensities =
      merged ? index_intensities(*merged, ctx.options.view) : IntensityIndex{};
  for (const auto* r : by_time(run.regions)) {
    Row region_row;
    region_row.input = input;
    region_row.subject = Subject{r, nullptr};
    std::vector<Row> groups;
    for (const auto* g : by_size(r->groups)) {
      Row row;
      row.input = input;
      row.subject = Subject{r, g};
      row.m = measure(row.subject, ctx.options.view, ctx.roofs, ctx.ghz);
      expected_for_group(row, ctx.options.work);
      if (merged) {
        intensity_spread(row, intensities);
        row.approximate_stats = merged->approximate_stats.count(subject_key(r->name, g->key)) > 0;
      }
      groups.push_back(std::move(row));
    }
    region_row.m = measure(region_row.subject, ctx.options.view, ctx.roofs, ctx.ghz);
    expected_for_region(region_row, groups, ctx.options.work, model.notes);
    if (merged) {
      intensity_spread(region_row, intensities);
      region_row.approximate_stats = merged->approximate_stats.count(subject_key(r->name)) > 0;
    }
    if (!region_row.expected_from.empty() && region_row.expected_from != "result" && input == 0)
      model.notes.push_back(
          fmt::format("expected flops of {}: {}", r->name, region_row.expected_from));
    model.rows.push_back(std::move(region_row));
    for (auto& g : groups) model.rows.push_back(std::move(g));
    if (std::string closes = abnormal_closes(*r); !closes.empty())
      model.abnormal.push_back(
          (model.compare ? model.inputs[size_t(input)] + ": " : std::string()) + r->name + ": " +
          closes);
  }
}

// --per-rank: each rank's regions and groups as rows of their own (plotted, not tabulated).
void add_rank_rows(Model& model, const JobSummary& job, const Context& ctx) {
  for (const auto* in : job.by_rank)
    for (const auto& r : in->run.regions) {
      auto add = [&](const result::Group* g) {
        Row row;
        row.subject = Subject{&r, g};
        row.rank = in->run.job->rank;
        row.m = measure(row.subject, ctx.options.view, ctx.roofs, ctx.ghz);
        model.rank_rows.push_back(std::move(row));
      };
      add(nullptr);
      for (const auto* g : by_size(r.groups)) add(g);
    }
}

void check_work_names(const std::vector<signatures::WorkFormula>& work,
                      const std::vector<const result::Run*>& runs) {
  for (const auto& w : work) {
    bool found = false;
    std::string names;
    for (const auto* run : runs)
      for (const auto& r : run->regions) {
        found = found || r.name == w.function;
        if (names.find(r.name) == std::string::npos) names += (names.empty() ? "" : ", ") + r.name;
      }
    if (!found)
      throw UserError(fmt::format("--work {}: no region of that name (regions: {})", w.function,
                                  names.empty() ? "none" : names));
  }
}

// Roofs, the clock for cycles, and the notes about them.
Context prepare(Model& model, const ModelOptions& options,
                const std::vector<const result::Run*>& runs) {
  Context ctx{options, nullptr, std::nullopt};
  check_work_names(options.work, runs);
  if (options.ceilings) {
    model.roofs = select_roofs(options.ceilings->ceilings, options.view, data_precision(runs), ran_with_threads(runs));
    ctx.roofs = &*model.roofs;
    ctx.ghz = clock_for_cycles(*model.roofs, options.ceilings->ceilings);
    model.notes.push_back(model.roofs->origin + " (" + options.ceilings->origin + ")");
    const auto& cpu = options.ceilings->ceilings.machine.cpu_model;
    for (const auto* run : runs)
      if (!run->host.cpu_model.empty() && run->host.cpu_model != cpu) {
        model.notes.push_back(fmt::format("the ceilings are of '{}' but a result ran on '{}'",
                                          cpu, run->host.cpu_model));
        break;
      }
    if (!model.roofs->beta)
      model.notes.push_back(fmt::format("the ceilings have no {} bandwidth for {} traffic: no "
                                        "bounds",
                                        options.view.level, name(options.view.rw)));
  } else {
    model.notes.push_back(
        "no ceilings, so no roofs and no bounds: run `roofprof ceilings` on the machine that "
        "ran the program (cached per machine), or pass --ceilings FILE");
  }
  if (options.view.units == Units::cycles)
    model.notes.push_back(
        "per cycle: P and the roofs are converted with the measured clock (W / (T x clock)); "
        "the flop/cyc column is W / cycles counted (summed over threads) where a cycles counter "
        "ran, else the converted P (~)");
  return ctx;
}

// File names as shown: the base name without ".json" when that is unique, else the path.
std::vector<std::string> display_labels(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::string base = p.substr(p.find_last_of('/') + 1);
    if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0)
      base.resize(base.size() - 5);
    out.push_back(base.empty() ? p : base);
  }
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = i + 1; j < out.size(); ++j)
      if (out[i] == out[j]) return paths;
  return out;
}

}  // namespace

Model build_model(const Merged& merged, const ModelOptions& options) {
  Model model;
  model.view = options.view;
  for (const auto* in : merged.inputs) model.inputs.push_back(in->label);
  model.headline = merged.inputs.size() > 1
                       ? fmt::format("{} result files merged", merged.inputs.size())
                       : run_headline(merged.run);
  if (merged.inputs.size() > 1 && !merged.run.command.empty())
    model.headline = run_headline(merged.run) + " (" + model.headline + ")";
  Context ctx = prepare(model, options, {&merged.run});
  model.notes.insert(model.notes.begin(), merged.notes.begin(), merged.notes.end());
  add_rows(model, merged.run, 0, &merged, ctx);
  model.warnings = merged.run.warnings;
  if (merged.job) {
    model.job = merged.job;
    model.headline = fmt::format("{}: MPI job{}, {} ranks merged", run_headline(merged.run),
                                 merged.job->id ? " " + *merged.job->id : "",
                                 merged.job->ranks.size());
    if (options.per_rank) add_rank_rows(model, *merged.job, ctx);
  } else if (options.per_rank) {
    model.notes.push_back("--per-rank: the files are not the ranks of one MPI job; no rank points");
  }
  return model;
}

Model build_compare_model(const std::vector<Input>& inputs, const ModelOptions& options) {
  Model model;
  model.view = options.view;
  model.compare = true;
  std::vector<const result::Run*> runs;
  std::vector<std::string> paths;
  for (const auto& in : inputs) {
    paths.push_back(in.label);
    runs.push_back(&in.run);
  }
  model.inputs = display_labels(paths);
  model.headline = fmt::format("comparing {} result files; ratios are relative to {}",
                               inputs.size(), model.inputs.front());
  Context ctx = prepare(model, options, runs);
  for (size_t i = 0; i < inputs.size(); ++i) {
    add_rows(model, inputs[i].run, int(i), nullptr, ctx);
    for (const auto& w : inputs[i].run.warnings)
      model.warnings.push_back(model.inputs[i] + ": " + w);
  }
  return model;
}

}  // namespace roofprof::report
