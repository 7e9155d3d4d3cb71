// How a run ended, and roofprof's exit status from it.
#include "supervisor/ending.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "supervisor/signals.hpp"

namespace roofprof::supervisor {
namespace {

// The status waitpid() gives for a child that ran `body`.
int status_of(void (*body)()) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(99);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(Ending, ExitCodeIsTheProgramsOwn) {
  EXPECT_EQ(Ending::exited(0).exit_code(), 0);
  EXPECT_EQ(Ending::exited(3).exit_code(), 3);
}

TEST(Ending, KilledIs128PlusTheSignal) { EXPECT_EQ(Ending::killed(SIGSEGV).exit_code(), 128 + SIGSEGV); }

TEST(Ending, NothingKnownIsZero) { EXPECT_EQ(Ending{}.exit_code(), 0); }

// A request to roofprof outweighs how the program ended (it ended because of it, or was cut short).
TEST(Ending, RequestOutweighsTheProgramsEnding) {
  EXPECT_EQ(Ending::requested(SIGINT).exit_code(), 128 + SIGINT);
  EXPECT_EQ(Ending::exited(3).cut_short_by(SIGTERM).exit_code(), 128 + SIGTERM);
  EXPECT_EQ(Ending::killed(SIGKILL).cut_short_by(SIGHUP).exit_code(), 128 + SIGHUP);
  EXPECT_EQ(Ending::exited(3).cut_short_by(0).exit_code(), 3);
}

TEST(Ending, OfWaitStatus) {
  EXPECT_EQ(Ending::of_wait_status(status_of([] { ::_exit(7); })), Ending::exited(7));
  EXPECT_EQ(Ending::of_wait_status(status_of([] { ::raise(SIGKILL); })), Ending::killed(SIGKILL));
  EXPECT_EQ(Ending::of_wait_status(status_of([] { ::raise(SIGKILL); })).exit_code(), 137);
}

// How roofprof names the signal that killed a program ("roofprof: program killed by SIGSEGV").
TEST(Ending, SignalNames) {
  EXPECT_EQ(signal_name(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(signal_name(SIGRTMIN + 6), "signal " + std::to_string(SIGRTMIN + 6));  // real-time: no name
}

// Interrupted before the program started: the same 128 + signal.
TEST(Ending, InterruptedBeforeStartAgrees) {
  EXPECT_EQ(Interrupted(SIGUSR1).exit_status(), Ending::requested(SIGUSR1).exit_code());
}

}  // namespace
}  // namespace roofprof::supervisor
