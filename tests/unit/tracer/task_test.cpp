#include "tracer/task.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace roofprof::tracer {
namespace {

// A child of the test's, traced (PTRACE_TRACEME) and stopped by its SIGSTOP; killed at the end.
class TracedChild {
 public:
  TracedChild() {
    pid = fork();
    if (pid == 0) {
      if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0) raise(SIGSTOP);
      for (;;) pause();
    }
    int status = 0;
    if (waitpid(pid, &status, __WALL) == pid) first_stop = WaitStatus(status);
  }
  ~TracedChild() {
    kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, __WALL) == pid && !WIFEXITED(status) && !WIFSIGNALED(status)) {
    }
  }
  // Killed and dead (a zombie, not reaped): ptrace finds no stopped tracee any more.
  void kill_and_await_death() {
    kill(pid, SIGKILL);
    siginfo_t si{};
    waitid(P_PID, id_t(pid), &si, WEXITED | WNOWAIT);
  }
  pid_t pid = 0;
  WaitStatus first_stop;
};

TEST(Task, ResumesAStoppedTaskOnce) {
  TracedChild child;
  ASSERT_EQ(child.first_stop.type(), WaitStatus::Type::SignalStop);
  Task t(child.pid, nullptr);
  EXPECT_FALSE(t.stopped());  // no stop taken in yet
  t.did_wait(child.first_stop);
  EXPECT_TRUE(t.stopped());
  EXPECT_TRUE(t.resume(How::Continue));
  EXPECT_FALSE(t.stopped());
}

TEST(Task, ResumingATaskThatIsNotStoppedIsABugSaidClearly) {
  TracedChild child;
  Task t(child.pid, nullptr);
  try {
    t.resume(How::Continue);
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("task " + std::to_string(child.pid) + " resumed while not stopped"),
              std::string::npos)
        << e.what();
  }
  t.did_wait(child.first_stop);
  ASSERT_TRUE(t.resume(How::Continue));
  EXPECT_THROW(t.resume(How::Step), std::logic_error);  // running since
}

TEST(Task, ATaskGoneMeanwhileIsNoError) {
  TracedChild child;
  Task t(child.pid, nullptr);
  t.did_wait(child.first_stop);
  child.kill_and_await_death();
  EXPECT_FALSE(t.resume(How::Continue));  // ESRCH: its exit is reported by a wait
  EXPECT_FALSE(t.stopped());
}

TEST(Task, DirtyRegistersOfATaskGoneMeanwhileAreNoError) {
  TracedChild child;
  Task t(child.pid, nullptr);
  t.did_wait(child.first_stop);
  user_regs_struct regs{};
  ASSERT_TRUE(t.read_regs(regs));
  t.set_regs(regs);
  child.kill_and_await_death();
  EXPECT_FALSE(t.resume(How::Step));  // PTRACE_SETREGS said ESRCH
}

TEST(Task, AnotherPtraceErrorIsABugSaidClearly) {
  TracedChild child;
  Task t(child.pid, nullptr);
  t.did_wait(child.first_stop);
  try {
    t.resume(How::Continue, 1000);  // no such signal: EIO
    FAIL() << "no error";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("PTRACE_CONT of task " + std::to_string(child.pid) + " failed: "),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace roofprof::tracer
