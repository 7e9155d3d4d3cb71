// The signal policy: requests recorded by the handlers, acted on by the supervisor's waits.
#include "supervisor/signals.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <gtest/gtest.h>

#include "common/clock.hpp"
#include "supervisor/child.hpp"

namespace roofprof::supervisor {
namespace {

namespace fs = std::filesystem;
constexpr int64_t kSecond = 1'000'000'000;

class Policy : public ::testing::Test {
 protected:
  void SetUp() override { install_signal_policy(); }
};

// A request that arrives before the policy exists (roofprof still reading symbols, say) is
// acted on at the first poll, and only by that policy.
TEST_F(Policy, RequestBeforeThePolicyIsNotLost) {
  ASSERT_EQ(::kill(::getpid(), SIGUSR2), 0);
  InterruptPolicy p(true);
  EXPECT_EQ(p.next(monotonic_ns()), Action::End);
  EXPECT_EQ(p.signal(), SIGUSR2);
  InterruptPolicy later(true);
  EXPECT_EQ(later.next(monotonic_ns()), Action::None);
}

TEST_F(Policy, NothingHappensWithoutARequest) {
  InterruptPolicy p(false);
  EXPECT_EQ(p.next(monotonic_ns()), Action::None);
  EXPECT_FALSE(p.interrupted());
}

// Sent to roofprof alone by a process: passed on, then the program has the grace period.
TEST_F(Policy, FirstRequestIsForwardedThenEndsAfterTheGrace) {
  InterruptPolicy p(false, kSecond);
  ASSERT_EQ(::kill(::getpid(), SIGUSR1), 0);  // handled: the test process goes on
  int64_t now = monotonic_ns();
  EXPECT_EQ(p.next(now), Action::Forward);
  EXPECT_EQ(p.signal(), SIGUSR1);
  EXPECT_TRUE(p.interrupted());
  EXPECT_TRUE(interrupted());
  EXPECT_EQ(last_request_signal(), SIGUSR1);
  EXPECT_EQ(p.next(now + kSecond / 2), Action::None);
  EXPECT_EQ(p.next(now + kSecond), Action::End);
  EXPECT_EQ(p.next(now + 2 * kSecond), Action::None);  // ended once
}

TEST_F(Policy, SecondRequestEndsAtOnce) {
  InterruptPolicy p(false, 100 * kSecond);
  ::kill(::getpid(), SIGHUP);
  EXPECT_EQ(p.next(monotonic_ns()), Action::Forward);
  ::kill(::getpid(), SIGTERM);
  EXPECT_EQ(p.next(monotonic_ns()), Action::End);
}

TEST_F(Policy, AttachedEndsAtTheFirstRequest) {
  InterruptPolicy p(true);
  ::kill(::getpid(), SIGALRM);
  EXPECT_EQ(p.next(monotonic_ns()), Action::End);
}

// A write of ours to a closed pipe (roofprof's stderr read by `| head` that ended): the write
// fails with EPIPE, no request, roofprof goes on.
TEST_F(Policy, OwnWriteToAClosedPipeIsNotARequest) {
  InterruptPolicy p(false);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  errno = 0;
  EXPECT_EQ(::write(fds[1], "x", 1), -1);
  EXPECT_EQ(errno, EPIPE);
  ::close(fds[1]);
  EXPECT_EQ(p.next(monotonic_ns()), Action::None);
  EXPECT_FALSE(p.interrupted());
}

// A request reaches the program through Child::wait: sleep dies of the forwarded signal at
// once, well before its 30 s.
TEST_F(Policy, ChildWaitForwardsTheRequest) {
  InterruptPolicy p(false, 5 * kSecond);
  Launch l;
  l.path = "/bin/sleep";
  l.argv = {"sleep", "30"};
  Child c(start(l), p);
  EXPECT_FALSE(c.wait(std::chrono::milliseconds(10)));
  auto t0 = std::chrono::steady_clock::now();
  ::kill(::getpid(), SIGTERM);
  while (!c.wait(std::chrono::milliseconds(20)))
    ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  EXPECT_TRUE(WIFSIGNALED(c.status()));
  EXPECT_EQ(WTERMSIG(c.status()), SIGTERM);
  EXPECT_FALSE(c.killed());
}

// A program that ignores the forwarded signal is killed when the grace period is over.
TEST_F(Policy, ChildIgnoringTheRequestIsKilledAfterTheGrace) {
  InterruptPolicy p(false, kSecond / 5);
  Launch l;
  l.path = "/bin/sh";
  l.argv = {"sh", "-c", "trap '' TERM; exec sleep 30"};  // SIG_IGN survives exec
  Child c(start(l), p);
  EXPECT_FALSE(c.wait(std::chrono::milliseconds(100)));  // the trap is set
  auto t0 = std::chrono::steady_clock::now();
  ::kill(::getpid(), SIGTERM);
  while (!c.wait(std::chrono::milliseconds(20)))
    ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
  EXPECT_TRUE(c.killed());
  EXPECT_EQ(WTERMSIG(c.status()), SIGKILL);
}

// A request no policy took yet is one before the program: start() forks nothing and throws
// Interrupted with the signal and 128 + it; the next policy still sees the request.
TEST_F(Policy, RequestBeforeStartEndsWithoutStartingTheProgram) {
  const fs::path marker = fs::temp_directory_path() / ("roofprof-start-" + std::to_string(::getpid()));
  fs::remove(marker);
  ASSERT_EQ(::kill(::getpid(), SIGUSR2), 0);
  EXPECT_EQ(pending_request_signal(), SIGUSR2);
  Launch l;
  l.path = "/usr/bin/touch";
  l.argv = {"touch", marker.string()};
  try {
    start(l);
    ADD_FAILURE() << "started the program";
  } catch (const Interrupted& e) {
    EXPECT_EQ(e.signal(), SIGUSR2);
    EXPECT_EQ(e.exit_status(), 128 + SIGUSR2);
    EXPECT_NE(std::string(e.what()).find("interrupted by SIGUSR2 before the program started"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a child was forked";
  EXPECT_FALSE(fs::exists(marker));
  InterruptPolicy p(true);
  EXPECT_EQ(p.next(monotonic_ns()), Action::End);  // taken now: no longer pending
  EXPECT_EQ(pending_request_signal(), 0);
  EXPECT_NO_THROW(end_if_requested());
}

// A signal passed on to the program before its exec (the tracer's child waits stopped until it
// is seized) ends it: roofprof's handlers, inherited until exec, must not catch it in the child
// (where the request was recorded and lost, and /bin/true then ran and exited 0).
TEST_F(Policy, SignalBeforeTheProgramsExecEndsIt) {
  Launch l;
  l.path = "/bin/true";
  l.argv = {"true"};
  l.stop_before_exec = true;
  const pid_t pid = start(l);
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  ASSERT_EQ(::kill(pid, SIGCONT), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;
  EXPECT_EQ(pending_request_signal(), 0) << "the child's signal is no request of roofprof's";
}

// A subcommand that runs no program gives the signals back: one received before that ends the
// process by its default action, as it would have without the policy.
TEST(Release, PendingRequestIsRaisedAgainWithTheDefaultAction) {
  EXPECT_EXIT(
      {
        install_signal_policy();
        ::kill(::getpid(), SIGTERM);
        ::kill(::getpid(), SIGINT);  // the latest request is raised
        release_signal_policy();
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGINT), "");
  EXPECT_EXIT(
      {
        install_signal_policy();
        release_signal_policy();
        ::raise(SIGTERM);
        std::_Exit(0);
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

TEST(Start, ExecFailureExits127) {
  Launch l;
  l.path = "/nonexistent/program";
  l.argv = {"program"};
  InterruptPolicy p(false);
  Child c(start(l), p);
  while (!c.wait(std::chrono::milliseconds(10))) {}
  EXPECT_TRUE(WIFEXITED(c.status()));
  EXPECT_EQ(WEXITSTATUS(c.status()), 127);
}

}  // namespace
}  // namespace roofprof::supervisor
