#include "supervisor/ending.hpp"

#include <sys/wait.h>

#include <cstring>
#include <fmt/format.h>

namespace roofprof::supervisor {

Ending Ending::of_wait_status(int status) {
  if (WIFEXITED(status)) return exited(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return killed(WTERMSIG(status));
  return Ending{};
}

int Ending::exit_code() const {
  if (request_signal) return 128 + request_signal;
  if (term_signal) return 128 + *term_signal;
  return exit_status.value_or(0);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  if (abbrev) return std::string("SIG") + abbrev;
  return fmt::format("signal {}", sig);
}

}  // namespace roofprof::supervisor
