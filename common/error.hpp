#pragma once
// A problem with what the user asked for or with the environment (unknown region,
// unreadable file, missing permission, unsupported CPU). The CLI prints its message
// as one line and exits with status 2. The message says what is wrong and what to do.
#include <stdexcept>
#include <string>

namespace roofprof {

class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exit status for every UserError.
inline constexpr int kUserErrorExit = 2;

// errno -> a short advice string for perf_event_open / ptrace failures (one table).
std::string advice_for_errno(int err, const char* what);

}  // namespace roofprof
