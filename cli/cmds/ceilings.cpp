// roofprof ceilings: this machine's measured roofs (peak flop/s, bandwidth, latency).
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ceilings/ceilings.hpp"
#include "ceilings/machine.hpp"
#include "cli/command.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"

namespace roofprof::cli {
namespace {

struct CeilingsOptions {
  bool full = false;
  bool quick = false;
  bool remeasure = false;
  std::string output;
  std::vector<std::string> only;
  std::vector<int> threads;
  std::vector<std::string> isas;
  std::vector<std::string> levels;
  double sample_ms = 0;
  int samples = 0;
};

// One status line on a terminal, rewritten in place; nothing when stderr is not a terminal.
void progress_line(const std::string& s) {
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[Kroofprof: measuring %s", s.c_str());
}
void progress_done() {
  if (isatty(STDERR_FILENO)) std::fprintf(stderr, "\r\033[K");
}

// One warning per line the sanity check flagged (ceilings/check.hpp): never used silently.
void warn_flagged(const ceilings::Ceilings& c) {
  for (const auto& line : ceilings::flagged_lines(c))
    std::fprintf(stderr, "roofprof: warning: flagged %s\n", line.c_str());
}

int run(const CeilingsOptions& o) {
  if (!o.output.empty() && o.output != "-") check_output(o.output, "ceilings file");  // before measuring
  ceilings::MeasureOptions m;
  m.mode = o.full ? ceilings::Mode::full : ceilings::Mode::quick;
  m.thread_counts = o.threads;
  m.sample_ms = o.sample_ms;
  m.samples = o.samples;
  for (const auto& i : o.isas) {
    m.isas.push_back(ceilings::parse_isa(i));
    if (!ceilings::supports(m.isas.back()))
      throw UserError("--isa " + i + ": this CPU does not support it");
  }
  for (const auto& l : o.levels) m.levels.push_back(ceilings::parse_level(l));
  m.progress = progress_line;
  if (!o.only.empty()) {
    m.compute = m.bandwidth = m.latency = false;
    for (const auto& part : o.only) {
      if (part == "compute") m.compute = true;
      else if (part == "bandwidth") m.bandwidth = true;
      else if (part == "latency") m.latency = true;
      else throw UserError("--only: unknown part '" + part + "' (known: compute, bandwidth, latency)");
    }
  }

  ceilings::Ceilings c;
  if (!o.only.empty() || !o.threads.empty() || !o.isas.empty() || !o.levels.empty() ||
      o.sample_ms > 0 || o.samples > 0) {
    // A partial measurement answers this command only; the cache keeps complete ones.
    c = ceilings::measure(m);
    progress_done();
  } else {
    ceilings::CacheOptions co;
    co.measure = m;
    co.remeasure = o.remeasure;
    auto loaded = ceilings::load_or_measure(co);
    progress_done();
    c = std::move(loaded.ceilings);
    if (loaded.from_cache)
      std::fprintf(stderr, "roofprof: ceilings from %s (measured %s); --remeasure to measure again\n",
                   loaded.path.c_str(), c.method.measured_at.c_str());
    else if (!loaded.path.empty())
      std::fprintf(stderr, "roofprof: measured in %.1f s, cached in %s\n", c.method.seconds,
                   loaded.path.c_str());
  }

  warn_flagged(c);
  if (o.output == "-") {
    std::printf("%s\n", ceilings::to_json(c).dump(2).c_str());
    return 0;
  }
  std::fputs(ceilings::format_table(c).c_str(), stdout);
  if (!o.output.empty()) ceilings::save(c, o.output);
  return 0;
}

}  // namespace

Runner setup_ceilings(CLI::App& sub) {
  auto o = std::make_shared<CeilingsOptions>();
  auto* quick = sub.add_flag("--quick", o->quick, "a short measurement, under a minute (default)");
  sub.add_flag("--full", o->full, "more samples and a working-set sweep over every size")
      ->excludes(quick);
  sub.add_flag("--remeasure", o->remeasure, "measure again even if the cache is valid");
  sub.add_option("-o,--output", o->output, "also write the JSON to FILE ('-': JSON on stdout)")
      ->type_name("FILE");
  sub.add_option("--only", o->only, "measure only these parts (compute, bandwidth, latency)")
      ->delimiter(',')
      ->type_name("LIST");
  sub.add_option("--threads", o->threads, "thread counts to measure (default: 1 and all CPUs)")
      ->delimiter(',')
      ->check(CLI::Range(1, 4096))
      ->type_name("LIST");
  sub.add_option("--isa", o->isas, "compute ISAs to measure (scalar, sse, avx2, avx512)")
      ->delimiter(',')
      ->type_name("LIST");
  sub.add_option("--levels", o->levels, "bandwidth and latency levels to measure (L1, L2, L3, DRAM)")
      ->delimiter(',')
      ->type_name("LIST");
  sub.add_option("--sample-ms", o->sample_ms, "length of one sample (default 20, --full 50)")
      ->check(CLI::Range(0.1, 60000.0))
      ->type_name("MS");
  sub.add_option("--samples", o->samples, "samples per ceiling after the warm-up (default 3, --full 9)")
      ->check(CLI::Range(1, 1000))
      ->type_name("N");
  return [o] { return run(*o); };
}

}  // namespace roofprof::cli
