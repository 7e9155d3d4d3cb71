#pragma once
#include <string>

namespace roofprof::report {

// Writes a report file whole (temporary file in the same directory, then rename), or to stdout
// when `path` is "-". Throws UserError naming `what` and the path when it cannot.
void write_output(const std::string& path, const std::string& text, const char* what);

}  // namespace roofprof::report
