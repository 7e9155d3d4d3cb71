// roofprof report RESULT...: the roofline table and plot of result files, merged (several
// runs of one program) or side by side (--compare), with SVG, HTML, CSV and JSON exports, the
// region instances as a Chrome trace (--trace) and the call paths as a Hatchet tree (--hatchet).
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "report/export.hpp"
#include "report/figure.hpp"
#include "report/annotate.hpp"
#include "report/hatchet.hpp"
#include "report/html.hpp"
#include "report/trace.hpp"
#include "report/svg.hpp"
#include "report/merge.hpp"
#include "report/model.hpp"
#include "report/pair.hpp"
#include "report/survey_table.hpp"
#include "report/table.hpp"
#include "report/terminal_plot.hpp"
#include "result/result.hpp"

namespace roofprof::cli {

namespace {

struct ReportOptions {
  std::vector<std::string> files;
  std::string html, svg, csv, json, trace, hatchet;
  std::string level = "DRAM";
  std::string rw = "both";
  std::string units = "seconds";
  std::string ceilings;
  std::optional<int> threads;
  std::vector<std::string> work;
  std::string group_by = "args";
  bool compare = false;
  bool hierarchical = false;
  bool no_plot = false;
  bool per_rank = false;
};

report::ModelOptions model_options(const ReportOptions& o) {
  report::ModelOptions m;
  m.view.level = o.level;
  m.view.rw = report::parse_rw(o.rw);
  m.view.units = report::parse_units(o.units);
  m.view.threads = o.threads;
  m.view.hierarchical = o.hierarchical;
  m.per_rank = o.per_rank;
  for (const auto& w : o.work) m.work.push_back(signatures::parse_work_option(w));
  m.ceilings = report::find_ceilings(o.ceilings.empty()
                                         ? std::nullopt
                                         : std::optional<std::filesystem::path>(o.ceilings));
  if (m.ceilings)
    for (const auto& w : m.ceilings->warnings) std::fprintf(stderr, "roofprof: warning: %s\n", w.c_str());
  return m;
}

void apply_group_by(const std::string& how, std::vector<report::Input>& inputs) {
  if (how == "args") return;
  if (how == "none") {
    for (auto& in : inputs)
      for (auto& r : in.run.regions) r.groups.clear();
    return;
  }
  if (how.rfind("caller", 0) == 0)
    throw UserError("--group-by " + how +
                    ": call paths are recorded when the program runs (roofprof run --group-by " + how +
                    "); the report shows the groups of the file (args) or none");
  throw UserError("--group-by " + how + ": expected args (the default) or none");
}

// The HTML report's annotation sections: each region of each file that has counts per
// instruction (run --annotate), in Intel syntax.
std::vector<std::string> annotations(const std::vector<report::Input>& inputs, bool compare) {
  std::vector<std::string> out;
  for (const auto& in : inputs)
    for (const auto& r : in.run.regions)
      if (!r.annotation.empty())
        out.push_back(report::annotation_html(r, {}, compare || inputs.size() > 1 ? in.label : ""));
  return out;
}

// --trace: UserError (exit 2) for a file without instances; says how many were left out. True
// when it took stdout.
bool write_trace(const std::string& path, const std::vector<report::Input>& inputs) {
  const std::string text = report::chrome_trace(inputs).dump() + "\n";
  const OutputTarget target = check_output(path, "trace file");
  write_output(target, text, "trace file");
  if (const uint64_t n = report::instances_left_out(inputs))
    std::fprintf(stderr, "roofprof: %s: %llu instances left out (the first %llu of each region on each thread of a run "
                         "are kept)\n",
                 path.c_str(), (unsigned long long)n, (unsigned long long)*inputs.front().run.instances_per_thread);
  return target.kind == OutputKind::Stream && target.fd == 1;
}

int run(const ReportOptions& o) {
  // Outputs first, then every input: a bad path or file stops the command before anything is
  // printed or written.
  for (const auto& [path, what] : {std::pair{o.svg, "SVG file"}, {o.html, "HTML file"}, {o.csv, "CSV file"},
                                   {o.json, "JSON file"}, {o.trace, "trace file"}, {o.hatchet, "Hatchet file"}})
    if (!path.empty()) check_output(path, what);
  std::vector<report::Input> inputs;
  std::vector<result::Run> runs = result::read_files(o.files);
  for (size_t i = 0; i < o.files.size(); ++i) inputs.push_back({o.files[i], std::move(runs[i])});
  // The timeline is each file's own instances: written before merging, whatever else is asked.
  const bool trace_on_stdout = !o.trace.empty() && write_trace(o.trace, inputs);
  if (o.compare && inputs.size() < 2)
    throw UserError("--compare needs two or more result files");
  apply_group_by(o.group_by, inputs);
  report::ModelOptions options = model_options(o);

  report::Merged merged;
  report::Model model;
  if (o.compare) {
    model = report::build_compare_model(inputs, options);
  } else {
    // A timed and an emulated job of one MPI command: each rank's T with its exact W and Q.
    std::optional<report::Paired> paired = report::pair_timed_and_emulated(inputs);
    if (paired) inputs = std::move(paired->ranks);
    merged = report::merge(inputs);
    if (paired) merged.notes.insert(merged.notes.begin(), paired->notes.begin(), paired->notes.end());
    model = report::build_model(merged, options);
  }
  const bool plot = !o.no_plot || !o.svg.empty() || !o.html.empty();
  const report::Figure figure = plot ? report::build_figure(model) : report::Figure{};

  // Each output is rendered only when asked for.
  bool stdout_taken = trace_on_stdout;
  auto out = [&](const std::string& path, const char* what, auto render) {
    if (path.empty()) return;
    const OutputTarget target = check_output(path, what);
    stdout_taken = stdout_taken || (target.kind == OutputKind::Stream && target.fd == 1);
    write_output(target, render(), what);
  };
  out(o.svg, "SVG file", [&] { return report::render_svg(figure); });
  out(o.html, "HTML file", [&] { return report::render_html(model, figure, annotations(inputs, o.compare)); });
  out(o.csv, "CSV file", [&] { return report::render_csv(model); });
  out(o.json, "JSON file", [&] { return report::report_json(model).dump(2) + "\n"; });
  out(o.hatchet, "Hatchet file", [&] {
    return report::hatchet_literal(o.compare ? inputs.front().run : merged.run, options.view).dump(1) + "\n";
  });
  if (stdout_taken) return 0;

  std::string text;
  for (const auto& in : inputs)  // a survey result: its hot functions first (docs/survey.md)
    if (in.run.survey) text += report::render_survey_table(in.run) + "\n";
  text += o.compare ? report::render_compare_table(model) : report::render_table(model);
  if (!o.no_plot && (!figure.markers.empty() || !figure.roofs.empty()))
    text += "\n" + report::render_terminal_plot(figure);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

Runner setup_report(CLI::App& sub) {
  auto o = std::make_shared<ReportOptions>();
  sub.add_option("results", o->files,
                 "result files written by roofprof run (-o); several are merged (summed; the "
                 "ranks of one MPI job: times are the slowest rank's, docs/mpi.md)")
      ->required();
  sub.add_option("--html", o->html, "write one self-contained HTML page (plot, sortable table)");
  sub.add_option("--svg", o->svg, "write the roofline plot as a standalone SVG file");
  sub.add_option("--csv", o->csv, "write one CSV row per region and group ('-': stdout)");
  sub.add_option("--json", o->json, "write the report as JSON ('-': stdout)");
  sub.add_option("--trace", o->trace,
                 "write the region instances as Chrome trace events, a timeline for Perfetto ('-': stdout; "
                 "docs/report.md)");
  sub.add_option("--hatchet", o->hatchet,
                 "write regions and call paths as a Hatchet literal tree (GraphFrame.from_literal; '-': stdout)");
  sub.add_option("--level", o->level, "memory level of Q and the intensity I = W/Q")
      ->check(CLI::IsMember({"L1", "L2", "L3", "DRAM"}))
      ->capture_default_str();
  sub.add_option("--rw", o->rw, "traffic: both (read + write), read (I = W/Q_read) or write")
      ->check(CLI::IsMember({"both", "read", "write"}))
      ->capture_default_str();
  sub.add_option("--units", o->units, "performance in seconds (GFlop/s) or cycles (flop/cycle)")
      ->check(CLI::IsMember({"seconds", "cycles"}))
      ->capture_default_str();
  sub.add_option("--ceilings", o->ceilings,
                 "roofs from this file (roofprof ceilings -o); default: this machine's cache");
  sub.add_option("--threads", o->threads, "roofs for this thread count (default: the most "
                                          "measured; 1 with --units cycles)");
  sub.add_option("--work", o->work,
                 "expected flops of one call, e.g. 'dgemm_=2*m*n*k' or 'fft=5*n*log2(n)'");
  sub.add_option("--group-by", o->group_by,
                 "args: a point per argument group (default); none: one per region")
      ->capture_default_str();
  sub.add_flag("--compare", o->compare,
               "show the files side by side instead of merging them (ratios to the first)");
  sub.add_flag("--hierarchical", o->hierarchical,
               "plot one point per memory level for each region");
  sub.add_flag("--no-plot", o->no_plot, "print the table only");
  sub.add_flag("--per-rank", o->per_rank,
               "the ranks of an MPI job: plot each rank's point too, besides the job's (docs/mpi.md)");
  return [o] { return run(*o); };
}

}  // namespace roofprof::cli
