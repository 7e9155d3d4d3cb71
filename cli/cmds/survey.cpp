// roofprof survey: where a program spends its time, function by function, without naming any
// (docs/survey.md). The program runs once, sampled (cpu-clock, no PMU needed); with --backend
// emul it runs again under emulation for each hot function's exact W and Q.
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "cli/cache_geometry_option.hpp"
#include "cli/command.hpp"
#include "cli/number_option.hpp"
#include "run/survey_emul.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/program.hpp"
#include "report/survey_table.hpp"
#include "result/result.hpp"
#include "runplan/option_values.hpp"
#include "supervisor/signals.hpp"
#include "survey/option_values.hpp"
#include "survey/profile.hpp"
#include "survey/run.hpp"
#include "survey/select.hpp"
#include "survey/variants.hpp"

namespace roofprof::cli {

namespace {

using namespace roofprof::run;  // the orchestration (run/): cli parses options and prints

struct SurveyOptions {
  std::string output = "roofprof-survey.json";
  bool output_given = false;  // -o: that name; else the default, numbered when another run holds it
  counters::BackendRequest backend = counters::BackendRequest::automatic;  // auto or emul
  unsigned rate = 0;  // 0: kDefaultRate, or kEmulRate before an emulated run
  size_t top = 20;
  double min_percent = 0;
  std::optional<survey::SortKey> sort;  // null: time, or work under --backend emul
  survey::Unwind unwind = survey::Unwind::Cfi;
  bool cache_sim = true;
  std::string cache_geometry;           // --cache-geometry as given
  std::vector<CacheInfo> cache_levels;  // its levels; empty: the host's caches
  bool quiet = false;
  std::vector<std::string> command;
};

// 1 kHz keeps the sampling overhead small (docs/benchmarks.md); before an emulated run, which
// is 50x slower anyway, 10 kHz finds functions that run for a few milliseconds only.
constexpr unsigned kDefaultRate = 1000;
constexpr unsigned kEmulRate = 10000;

result::Run survey_header(const SurveyOptions& o, const survey::SampledRun& sampled) {
  result::Run res;
  res.tool_version = ROOFPROF_VERSION;
  res.command = o.command;
  const bool emul = o.backend == counters::BackendRequest::emul;
  res.backend = counters::to_string(emul ? counters::BackendKind::emul : counters::BackendKind::time);
  res.scope = runplan::to_string(emul ? regions::Scope::Thread : regions::Scope::Process);
  res.host = result::describe_host();
  res.wall_time_s = sampled.wall_time_s;
  res.exit_status = sampled.ending.exit_status;
  res.term_signal = sampled.ending.term_signal;
  res.complete = sampled.complete;
  if (sampled.samples.user_only)
    res.warnings.push_back("the kernel's part of the run was not sampled (perf_event_paranoid lets an ordinary "
                           "user sample user space only): time in system calls is in no function; as root, or with "
                           "kernel.perf_event_paranoid = 1, it is [kernel]");
  if (sampled.samples.lost)
    res.warnings.push_back(fmt::format("{} samples were lost (the ring buffer was full): times are low", sampled.samples.lost));
  return res;
}

// Only the kept functions' regions stay, renumbered.
void keep_selected_regions(result::Run& res) {
  std::vector<result::Region> kept;
  for (auto& f : res.survey->functions) {
    if (!f.region) continue;
    kept.push_back(std::move(res.regions.at(*f.region)));
    f.region = kept.size() - 1;
  }
  res.regions = std::move(kept);
}

int run(const SurveyOptions& o) {
  supervisor::install_signal_policy();
  if (o.command.empty()) throw UserError("no program given: add -- PROGRAM [ARGS...]");
  const OutputTarget target = o.output_given ? check_output(o.output, "result file") : claim_output(o.output, "result file");
  const std::string& output = target.path;
  runnable_program(o.command.at(0));  // a missing or foreign program is one line, before "sampling"
  const bool emul = o.backend == counters::BackendRequest::emul;
  const unsigned rate = o.rate ? o.rate : emul ? kEmulRate : kDefaultRate;
  if (!o.quiet) std::fprintf(stderr, "roofprof: sampling cpu-clock at %u Hz\n", rate);
  survey::SampledRun sampled = survey::sample_program(o.command, rate, o.unwind == survey::Unwind::Cfi);
  result::Run res = survey_header(o, sampled);
  symbolizer::ElfCache cache;
  res.survey = survey::build_survey(sampled.samples, cache);
  PassOutcome emulation;  // none run: no error, not interrupted
  if (emul && sampled.complete) {
    survey::add_dispatch_variants(*res.survey, cache);
    emulation = emulate_survey(o.command, {o.cache_sim, o.quiet, o.cache_levels}, res);
    survey::drop_unreached_variants(*res.survey);
  }
  survey::Selection sel;
  sel.top = o.top;
  sel.min_percent = o.min_percent;
  sel.sort = o.sort.value_or(emul ? survey::SortKey::Work : survey::SortKey::Time);
  survey::select_functions(*res.survey, sel);
  keep_selected_regions(res);
  for (auto& note : survey::stripped_module_notes(*res.survey, cache)) res.warnings.push_back(std::move(note));
  for (auto& note : survey::unknown_entry_notes(sampled.samples, cache)) res.warnings.push_back(std::move(note));
  if (auto note = survey::frame_pointer_note(sampled.samples, cache)) res.warnings.push_back(std::move(*note));
  result::write_atomic(res, target);
  const std::string table = report::render_survey_table(res);
  std::fwrite(table.data(), 1, table.size(), stdout);
  if (!o.quiet) {
    for (const auto& w : res.warnings) std::fprintf(stderr, "roofprof: warning: %s\n", w.c_str());
    std::fprintf(stderr, "roofprof: results in %s (roofprof report %s; roofprof run --regions-from %s -- ...)\n",
                 output.c_str(), output.c_str(), output.c_str());
  }
  if (!emulation.error.empty()) throw UserError(emulation.error + " (the sampled survey is in " + output + ")");
  const bool cut_short = !sampled.complete || emulation.interrupted;
  return sampled.ending.cut_short_by(cut_short ? supervisor::last_request_signal() : 0).exit_code();
}

}  // namespace

Runner setup_survey(CLI::App& sub, const std::vector<std::string>& program) {
  auto o = std::make_shared<SurveyOptions>();
  auto* output = sub.add_option("-o,--output", o->output,
                                "result file (an existing one is kept as FILE.old; the default is numbered, "
                                "roofprof-survey.1.json, while another run writes it)")
                     ->capture_default_str();
  // --backend, --sort and --unwind: the word checked against survey's names, then its value taken
  sub.add_option_function<std::string>(
         "--backend", [o](const std::string& word) { o->backend = *survey::backend_named(word); },
         "auto: sampled times only; emul: and every hot function's exact W and Q from one emulated run")
      ->check(CLI::IsMember(survey::backend_names()))
      ->default_str(counters::to_string(o->backend));
  sub.add_option("--rate", o->rate, "samples per second of CPU time (default 1000; 10000 with --backend emul)")
      ->check(CLI::Range(1u, 100000u));
  sub.add_option("--top,-n", o->top, "keep at most N functions (table and result file)")
      ->check(at_least(1))
      ->capture_default_str();
  sub.add_option("--min-percent", o->min_percent, "keep only functions with at least this share of the samples (self)")
      ->check(between(0, 100));
  sub.add_option_function<std::string>(
         "--sort", [o](const std::string& word) { o->sort = *survey::sort_named(word); },
         "time: by sampled self time (default); work: by exact self W (default with --backend emul)")
      ->check(CLI::IsMember(survey::sort_names()));
  sub.add_option_function<std::string>(
         "--unwind", [o](const std::string& word) { o->unwind = *survey::unwind_named(word); },
         "call chains for the total column: cfi: each sample's stack copied (16 KiB) and unwound with "
         "DWARF CFI, frame pointers where that fails; fp: the kernel's frame-pointer walk only (cheaper, "
         "not inclusive in code built without frame pointers)")
      ->check(CLI::IsMember(survey::unwind_names()))
      ->default_str(survey::to_string(o->unwind));
  sub.add_flag("!--no-cache-sim", o->cache_sim, "emulation: no cache simulation (L1 traffic only)");
  add_cache_geometry_option(sub, o->cache_geometry, "; with --backend emul");
  sub.add_flag("--quiet,-q", o->quiet, "no progress or notes on stderr");
  sub.footer(kProgramFooter);
  return [o, output, &program] {
    o->output_given = output->count() > 0;
    o->command = program;
    if (o->sort == survey::SortKey::Work && o->backend != counters::BackendRequest::emul)
      throw UserError("--sort work needs exact W: add --backend emul");
    o->cache_levels = cache_geometry_option(o->cache_geometry);
    if (!o->cache_levels.empty() && o->backend != counters::BackendRequest::emul)
      throw UserError("--cache sets the caches the emulated run simulates: add --backend emul");
    if (!o->cache_levels.empty() && !o->cache_sim)
      throw UserError("--cache describes the simulated caches, which --no-cache-sim turns off: give one");
    return run(*o);
  };
}

}  // namespace roofprof::cli
