// roofprof symbols: which functions could be regions, in the executable and every library
// it loads (the program is started, stopped at its entry point and killed; with --run it runs
// to its end, and libraries it loaded by dlopen are listed too, marked so).
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <set>

#include "cli/command.hpp"
#include "common/error.hpp"
#include "common/strings.hpp"
#include "counters/backend.hpp"
#include "probes/plan.hpp"
#include "symbolizer/inlined.hpp"
#include "symbolizer/name_glob.hpp"
#include "tracer/session.hpp"

namespace roofprof::cli {

namespace {

struct SymbolsOptions {
  std::string match;
  int pid = 0;
  bool run = false;
  std::vector<std::string> command;
};

bool matches(const std::string& pattern, const symbolizer::Symbol& s) {
  if (pattern.empty()) return true;
  // A glob matches as it does for --region (at any scope; symbolizer/name_glob.hpp).
  if (symbolizer::is_glob(pattern)) return symbolizer::glob_matches(pattern, s);
  return s.demangled.find(pattern) != std::string::npos || s.name.find(pattern) != std::string::npos;
}

int run(const SymbolsOptions& o) {
  if (o.command.empty() && o.pid == 0) throw UserError("no program given: add -- PROGRAM [ARGS...] or --pid PID");
  if (o.run && o.pid) throw UserError("--run starts the program: give -- PROGRAM [ARGS...] instead of --pid");
  auto backend = counters::make_null_backend();
  probes::Planner planner({});
  tracer::SessionOptions so;
  so.argv = o.command;
  so.attach_pid = o.pid;
  so.stop_at_entry = !o.run;
  so.record_modules = o.run;
  so.follow_fork = false;
  regions::Tracker tracker([](regions::Instance&&) {});  // no regions: nothing opens
  tracer::Session session(so, *backend, planner, tracker);
  // Without --run the program is stopped at its entry: signals keep their default action.
  if (!o.run) supervisor::release_signal_policy();
  auto outcome = session.run();
  std::set<std::string> late(outcome.loaded_late.begin(), outcome.loaded_late.end());
  size_t total = 0;
  for (const auto& m : outcome.modules) {
    std::vector<const symbolizer::Symbol*> hits;
    for (const auto& s : m.elf->functions())
      if (matches(o.match, s)) hits.push_back(&s);
    // Inlined copies (DWARF) of the program's own functions: a --region of the name covers them.
    std::vector<const symbolizer::InlinedCopy*> copies;
    if (!o.match.empty() && !probes::is_system_library(m.path))
      for (const auto& c : m.elf->inlined())
        if (matches(o.match, c.origin)) copies.push_back(&c);
    if (hits.empty() && copies.empty()) continue;
    std::printf("%s%s\n", m.path.c_str(), late.count(m.path) ? "  (loaded by dlopen)" : "");
    for (const auto* s : hits) {
      std::printf("  %#10llx  %s", static_cast<unsigned long long>(s->value), s->demangled.c_str());
      if (s->demangled != s->name) std::printf("  [%s]", s->name.c_str());
      std::printf("\n");
    }
    for (const auto* c : copies)
      std::printf("  %#10llx  %s  (inlined%s%s)\n", static_cast<unsigned long long>(c->ranges.front().begin),
                  c->origin.demangled.c_str(), c->call_site.empty() ? "" : " at ", c->call_site.c_str());
    total += hits.size() + copies.size();
  }
  std::fprintf(stderr, "roofprof: %zu functions in %zu modules%s%s\n", total, outcome.modules.size(),
               o.match.empty() ? "" : fmt::format(" match '{}'", o.match).c_str(),
               o.run ? fmt::format(" ({} loaded by dlopen)", late.size()).c_str() : "");
  // A stripped program or library of the program's own lists its exported functions only: said.
  for (const auto& m : outcome.modules)
    if (!probes::is_system_library(m.path))
      if (auto note = m.elf->stripped_note()) std::fprintf(stderr, "roofprof: note: %s\n", note->c_str());
  return o.run ? outcome.ending.exit_code() : 0;
}

}  // namespace

Runner setup_symbols(CLI::App& sub, const std::vector<std::string>& program) {
  auto o = std::make_shared<SymbolsOptions>();
  sub.add_option("--match,-m", o->match, "substring or glob of the names to list");
  sub.add_option("--pid,-p", o->pid, "list the modules of a running process");
  sub.add_flag("--run", o->run,
               "run the program to its end (not only to its entry point) and list every library it loaded, "
               "those loaded by dlopen marked so (numpy loads OpenBLAS that way)");
  sub.footer(kProgramFooter);
  return [o, &program] {
    o->command = program;
    return run(*o);
  };
}

}  // namespace roofprof::cli
