// roofprof: roofline profiler for unmodified Linux binaries.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "common/error.hpp"

namespace {

struct Subcommand {
  const char* name;
  const char* help;
  roofprof::cli::Runner (*setup)(CLI::App&);
};

constexpr Subcommand kSubcommands[] = {
    {"run", "trace a program (or attach to one) and measure regions", roofprof::cli::setup_run},
    {"symbols", "list functions that could be regions (executable and every loaded library)",
     roofprof::cli::setup_symbols},
    {"report", "print the table of one or more result files", roofprof::cli::setup_report},
    {"events", "show the hardware event set roofprof uses here or on --pmu MODEL", roofprof::cli::setup_events},
    {"doctor", "check what this machine can measure and how to fix what is missing", roofprof::cli::setup_doctor},
    {"ceilings", "measure (or show the cached) peak flop/s, bandwidth and latency of this machine",
     roofprof::cli::setup_ceilings},
    {"selftest", "validate W and Q on this machine with kernels of known work and traffic (docs/validation.md)",
     roofprof::cli::setup_selftest},
};

bool is_subcommand(const char* s) {
  for (const auto& c : kSubcommands)
    if (std::strcmp(c.name, s) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  // `roofprof --region f -- ./app` is `roofprof run --region f -- ./app`.
  std::vector<char*> args(argv, argv + argc);
  if (argc > 1 && !is_subcommand(argv[1]) && std::strcmp(argv[1], "--help") != 0 &&
      std::strcmp(argv[1], "-h") != 0 && std::strcmp(argv[1], "--version") != 0) {
    static char run[] = "run";
    args.insert(args.begin() + 1, run);
  }

  CLI::App app{"roofprof: roofline profiler for unmodified Linux binaries"};
  app.set_version_flag("--version", std::string(ROOFPROF_VERSION));
  app.require_subcommand(1);
  std::vector<std::pair<CLI::App*, roofprof::cli::Runner>> runners;
  for (const auto& c : kSubcommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runners.emplace_back(sub, c.setup(*sub));
  }

  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "roofprof: %s (see roofprof --help)\n", e.what());
    return roofprof::kUserErrorExit;
  }

  try {
    for (auto& [sub, runner] : runners)
      if (sub->parsed()) return runner();
  } catch (const roofprof::UserError& e) {
    std::fprintf(stderr, "roofprof: %s\n", e.what());
    return roofprof::kUserErrorExit;
  }
  return 0;
}
