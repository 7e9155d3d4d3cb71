// The signal policy: requests recorded by the handlers, acted on by the supervisor's waits.
#include "supervisor/signals.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <gtest/gtest.h>

#include "common/clock.hpp"
#include "supervisor/child.hpp"

namespace roofprof::supervisor {
namespace {

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
