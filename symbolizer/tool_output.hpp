#pragma once
// Output of a helper program roofprof asks about a file (dpkg -S, debuginfod-find).
#include <optional>
#include <string>
#include <vector>

namespace roofprof::symbolizer {

// The standard output of `argv` (argv[0] found in PATH) run to its end with stdin and stderr on
// /dev/null; nullopt when it cannot start or exits with a status other than 0.
std::optional<std::string> tool_output(const std::vector<std::string>& argv);

}  // namespace roofprof::symbolizer
