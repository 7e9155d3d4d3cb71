#pragma once
#include <string>

namespace roofprof {
// Where execvp would find `prog`: itself when it contains a '/', else the first executable
// file of that name in $PATH (default /usr/local/bin:/usr/bin:/bin); "" when there is none.
std::string find_in_path(const std::string& prog);
// find_in_path, for a program about to be started: throws UserError (one line, exit 2) when
// there is no such file or it is not an executable file.
std::string runnable_program(const std::string& prog);
}  // namespace roofprof
