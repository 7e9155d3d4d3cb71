#pragma once
// One subcommand = one file in cli/cmds/. Each defines a setup function that adds its options
// to a CLI11 subcommand (bound to an options struct it owns, never a file-static global) and
// returns the function that runs it.
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace roofprof::cli {

using Runner = std::function<int()>;

// Subcommands that start a program get it, with its arguments, split off the command line
// before CLI11 parses it (common/command_line.hpp): `program` is filled before the Runner runs.
Runner setup_run(CLI::App& sub, const std::vector<std::string>& program);
Runner setup_symbols(CLI::App& sub, const std::vector<std::string>& program);
Runner setup_survey(CLI::App& sub, const std::vector<std::string>& program);
inline constexpr const char* kProgramFooter =
    "PROGRAM [ARGS...] after -- (or from the program's name on) reach the program verbatim: options there are "
    "the program's, not roofprof's.\nDebug log: ROOFPROF_LOG=tracer,counters,agent,emul (or all) logs each ptrace stop "
    "and resume, perf_event_open and the agent's and emulated pass's decisions, to stderr or to ROOFPROF_LOG_FILE "
    "(docs/architecture.md, Debug log).";
Runner setup_report(CLI::App& sub);
Runner setup_events(CLI::App& sub);
Runner setup_doctor(CLI::App& sub);
Runner setup_ceilings(CLI::App& sub);
Runner setup_selftest(CLI::App& sub);
Runner setup_annotate(CLI::App& sub);

}  // namespace roofprof::cli
