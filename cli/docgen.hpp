#pragma once
// Man pages and the shell completions' option table, generated from the CLI11 definitions that
// --help prints (cli/cmds/*.cpp), so that neither can drift from the command line. The build runs
// the hidden `roofprof --generate-docs DIR` (cli/CMakeLists.txt); `roofprof --man [SUBCOMMAND]`
// prints one page.
#include <CLI/CLI.hpp>
#include <string>

namespace roofprof::cli {

// roofprof(1) for `app` itself (sub == nullptr), roofprof-SUB(1) for one of its subcommands.
std::string man_page(const CLI::App& app, const CLI::App* sub, const std::string& version);

// Shell functions (valid bash and zsh) naming each subcommand's options, those that take a value,
// and the values of those that accept only a few (cli/completion/common.sh uses them).
std::string completion_table(const CLI::App& app);

// DIR/man/man1/roofprof.1, DIR/man/man1/roofprof-SUB.1 for every subcommand, and
// DIR/completion-table.sh. UserError when DIR cannot be written.
void generate_docs(const CLI::App& app, const std::string& version, const std::string& dir);

}  // namespace roofprof::cli
