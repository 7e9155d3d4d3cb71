#pragma once
#include <string>

#include "common/error.hpp"

namespace roofprof {

// A program that exists but cannot be executed (exec format error: a 32-bit or foreign ELF):
// one line, and the exit status a shell gives for it, 126, instead of 2.
class CannotExecute : public UserError {
 public:
  using UserError::UserError;
  static constexpr int kExit = 126;
};

// Where execvp would find `prog`: itself when it contains a '/', else the first executable
// file of that name in $PATH (default /usr/local/bin:/usr/bin:/bin); "" when there is none.
std::string find_in_path(const std::string& prog);
// find_in_path, for a program about to be started: throws UserError (one line, exit 2) when
// there is no such file or it is not an executable file, CannotExecute (exit 126, as a shell)
// when it is an ELF file for another class or machine than x86-64 (a 32-bit program).
std::string runnable_program(const std::string& prog);
}  // namespace roofprof
