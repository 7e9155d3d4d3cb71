#pragma once
// One subcommand = one file in cli/cmds/. Each defines a setup function that adds its options
// to a CLI11 subcommand (bound to an options struct it owns, never a file-static global) and
// returns the function that runs it.
#include <CLI/CLI.hpp>
#include <functional>

namespace roofprof::cli {

using Runner = std::function<int()>;

Runner setup_run(CLI::App& sub);
Runner setup_symbols(CLI::App& sub);
Runner setup_report(CLI::App& sub);
Runner setup_events(CLI::App& sub);
Runner setup_doctor(CLI::App& sub);
Runner setup_ceilings(CLI::App& sub);
Runner setup_selftest(CLI::App& sub);

}  // namespace roofprof::cli
