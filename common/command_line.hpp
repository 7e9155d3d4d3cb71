#pragma once
// A subcommand's command line split into roofprof's options and the program to run, before
// the option parser sees it, so that the program's arguments reach it verbatim (`-n`, `-o x`,
// `--help` after the program name are the program's, never roofprof's).
//
//   roofprof run -r f -- ./app -n 1     options: -r f        program: ./app -n 1
//   roofprof run -r f ./app -n 1        options: -r f        program: ./app -n 1
//   roofprof run -r f g -- ./app        options: -r f g      program: ./app
//
// After `--` everything is the program's. Without `--` the program starts at the first word
// that is neither an option nor an option's value; an option that takes several values takes
// one then (several only when a `--` follows them).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof {

struct OptionShape {
  std::vector<std::string> names;  // "--region", "-r", "--no-preload"
  bool takes_value = false;        // false: a flag
  bool multi_value = false;        // --region a b (several values after one occurrence)
};

struct SplitCommandLine {
  std::vector<std::string> options;  // for the option parser, `--` removed
  std::vector<std::string> program;  // verbatim
};

// Throws UserError naming an unknown option (with "did you mean" when one is close).
// `command` names the subcommand in that message ("roofprof run").
SplitCommandLine split_command_line(const std::vector<std::string>& args, const std::vector<OptionShape>& shapes,
                                    std::string_view command);

// The names among `candidates` close enough to `word` to be a likely typo of it (at most
// `count`), closest first; empty when none is close.
std::vector<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                                      size_t count = 3);

// " (did you mean X?)", " (did you mean X or Y?)", or "" when `near` is empty.
std::string did_you_mean_phrase(const std::vector<std::string>& near);

}  // namespace roofprof
