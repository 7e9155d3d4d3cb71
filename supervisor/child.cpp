#include "supervisor/child.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/error.hpp"

namespace roofprof::supervisor {

int exec_failure_status(int err) { return err == ENOENT || err == ENOTDIR ? 127 : 126; }

pid_t start(const Launch& l) {
  end_if_requested();  // a signal before the program: roofprof ends, the program never starts
  std::vector<char*> argv;
  for (const auto& a : l.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw UserError(advice_for_errno(errno, "fork"));
  if (pid == 0) {
    default_signals_in_child();  // before the SIGSTOP below: a signal passed on now ends the child
    if (l.in_child) l.in_child();
    char* const* env = l.env ? l.env() : nullptr;
    if (l.stop_before_exec) ::raise(SIGSTOP);  // wait to be seized
    if (env) ::execve(l.path.c_str(), argv.data(), env);
    else ::execv(l.path.c_str(), argv.data());
    const int err = errno;
    std::fprintf(stderr, "roofprof: cannot run '%s': %s\n", l.argv.empty() ? l.path.c_str() : l.argv[0].c_str(),
                 std::strerror(err));
    ::_exit(exec_failure_status(err));
  }
  if (l.stop_before_exec) {
    int status = 0;
    if (::waitpid(pid, &status, WSTOPPED) != pid || !WIFSTOPPED(status)) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      throw UserError(fmt::format("cannot start '{}'", l.argv.empty() ? l.path : l.argv[0]));
    }
  }
  return pid;
}

Child::Child(pid_t pid, InterruptPolicy& policy) : pid_(pid), policy_(policy) {}

bool Child::reap() {
  int st = 0;
  pid_t r = ::waitpid(pid_, &st, WNOHANG);
  if (r == pid_) status_ = st;
  else if (r < 0 && errno == ECHILD) status_ = 0;  // not ours to wait for any more
  return ended();
}

bool Child::wait(std::chrono::nanoseconds timeout) {
  const int64_t timeout_ns = timeout.count();
  if (ended() || reap()) return true;
  switch (policy_.next(monotonic_ns())) {
    case Action::Forward: ::kill(pid_, policy_.signal()); break;
    case Action::End:
      ::kill(pid_, SIGKILL);
      killed_ = true;
      break;
    case Action::None: break;
  }
  if (killed_) {
    int st = 0;
    while (::waitpid(pid_, &st, 0) < 0 && errno == EINTR) {}
    status_ = st;
    return true;
  }
  if (timeout_ns > 0) {
    timespec ts{time_t(timeout_ns / 1'000'000'000), long(timeout_ns % 1'000'000'000)};
    ::nanosleep(&ts, nullptr);  // a signal (a request, the grace timer, SIGCHLD if handled) ends it early
  }
  return reap();
}

}  // namespace roofprof::supervisor
