// roofprof selftest: validate W and Q on this machine with kernels of known work and traffic
// (the seed paper's Table IV), through every backend asked for. docs/validation.md.
// Exit status: 0 pass or warn, 1 fail, 2 bad input (or a backend that cannot run here).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli/cache_geometry_option.hpp"
#include "cli/command.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"
#include "common/temp_dir.hpp"
#include "counters/backend_choice.hpp"
#include "counters/capabilities.hpp"
#include "emul/cache_geometry.hpp"
#include "runplan/option_values.hpp"
#include "selftest/measure.hpp"
#include "selftest/plan.hpp"
#include "selftest/table.hpp"

namespace roofprof::cli {
namespace {

struct SelftestOptions {
  std::string backend = "auto";
  bool quick = false;
  bool full = false;
  std::string json;
  std::string cache_geometry;  // --cache-geometry: the emulated runs' hierarchy and the sizes' LLC
};

// The backends to run, by the names `roofprof run --backend` takes.
std::vector<std::string> backends_for(const std::string& requested, std::vector<std::string>& notes) {
  auto caps = counters::probe_capabilities();
  auto measures = [](counters::BackendKind k) { return k != counters::BackendKind::time; };
  if (requested == "auto") {
    auto choice = counters::choose_backend(counters::BackendRequest::automatic, caps);
    if (!measures(choice.kind))
      throw UserError("nothing on this machine measures W or Q (no usable hardware counters, no valgrind): "
                      "install valgrind (scripts/install-deps.sh) or see roofprof doctor");
    return {counters::to_string(choice.kind)};
  }
  if (requested != "all") {
    counters::choose_backend(*runplan::backend_named(requested), caps);  // UserError when it cannot run here
    return {requested};
  }
  std::vector<std::string> out;
  for (const char* b : {"perf", "native", "emul"}) {
    try {
      counters::choose_backend(*runplan::backend_named(b), caps);
      out.push_back(b);
    } catch (const UserError& e) {
      notes.push_back(fmt::format("backend {} not run: {}", b, e.what()));
    }
  }
  if (out.empty()) throw UserError("--backend all: no backend that measures W can run here (see roofprof doctor)");
  return out;
}

int run(const SelftestOptions& o) {
  if (!o.json.empty()) check_output(o.json, "selftest JSON file");  // before minutes of runs
  if (o.quick && o.full) throw UserError("give --quick or --full, not both");
  std::string mode = o.full ? "full" : "quick";
  const auto given = cache_geometry_option(o.cache_geometry);
  // UserError when neither sysfs nor CPUID describes the caches
  const auto levels = given.empty() ? emul::host_cache_geometry() : given;
  selftest::Plan plan = selftest::make_plan(o.full, levels.back().size);
  if (!given.empty())
    plan.notes.push_back("sizes and the emulated runs' simulated caches from --cache-geometry " +
                         emul::to_string(given) + ", not the host's caches");
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::erase_if(plan.cases, [](const selftest::Case& c) { return std::string(c.kernel->name) == "fma"; });
    plan.notes.push_back("fma not run: this CPU has no AVX2+FMA");
  }
  std::vector<std::string> backends = backends_for(o.backend, plan.notes);
  if (!given.empty())
    for (const auto& b : backends)
      if (b != "emul")
        throw UserError("--cache-geometry describes simulated caches, and backend " + b +
                        " measures the host's: use --backend emul");

  selftest::Runner runner;
  std::error_code ec;
  runner.roofprof = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  runner.kernels = selftest::kernels_program();
  TempDir dir("roofprof-selftest", "selftest's runs");
  runner.workdir = dir.path();
  runner.progress = [](const std::string& line) { std::fprintf(stderr, "roofprof selftest: %s\n", line.c_str()); };
  runner.cache_geometry = given.empty() ? "" : emul::to_string(given);

  std::vector<std::vector<selftest::Row>> per_backend;
  for (const auto& b : backends) per_backend.push_back(selftest::measure(plan, b, runner));
  selftest::Report report = selftest::make_report(mode, plan, per_backend);
  selftest::print_report(report, stdout);
  if (!o.json.empty()) {
    write_output_file(o.json, report_json(report).dump(2) + "\n", "selftest JSON file");
  }
  return report.verdict == selftest::Verdict::Fail ? 1 : 0;
}

}  // namespace

Runner setup_selftest(CLI::App& sub) {
  auto o = std::make_shared<SelftestOptions>();
  sub.add_option("--backend", o->backend,
                 "auto (what run --backend auto uses), perf, native, emul, or all available (each checked against "
                 "the kernels' known counts: with a PMU, all cross-checks the hardware's W with native counting's)")
      ->check(CLI::IsMember({"auto", "perf", "native", "emul", "all"}));
  sub.add_flag("--quick", o->quick, "small set (default): in-LLC sizes and daxpy/triad beyond the LLC");
  sub.add_flag("--full", o->full, "every kernel at larger sizes, 3 runs each");
  sub.add_option("--json", o->json, "also write the table as JSON (docs/result-schema.md, selftest)");
  add_cache_geometry_option(sub, o->cache_geometry,
                            "; also the LLC the kernels' sizes are chosen by; --backend emul only");
  return [o] { return run(*o); };
}

}  // namespace roofprof::cli
