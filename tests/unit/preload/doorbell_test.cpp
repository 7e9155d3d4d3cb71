// The reader's doorbell (preload/doorbell.hpp): a sleep ends at its timeout, or at once when
// SIGCHLD came after arm(), even before the sleep began (no lost wake-up). An agent's ring is
// covered by PreloadSemantics.TheReaderSleepsUntilARingFillsPastItsMark (integration).
#include "preload/doorbell.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

namespace roofprof::preload {
namespace {

struct Dir {
  std::string path;
  Dir() {
    char t[] = "/tmp/roofprof-doorbell-XXXXXX";
    path = ::mkdtemp(t);
  }
  ~Dir() { std::filesystem::remove_all(path); }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(Doorbell, IsAFileOfTheRecordDirectory) {
  Dir d;
  Doorbell bell(d.path);
  struct stat st {};
  ASSERT_EQ(::stat((d.path + "/" + RP_DOORBELL_NAME).c_str(), &st), 0);
  EXPECT_EQ(st.st_size, RP_DOORBELL_BYTES);
  EXPECT_EQ(bell.rings(), 0u);
}

TEST(Doorbell, SleepsUntilItsTimeoutWhenNothingRings) {
  Dir d;
  Doorbell bell(d.path);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(bell.sleep(bell.arm(), 30'000'000));
  EXPECT_GE(seconds_since(t0), 0.030);
}

TEST(Doorbell, ChildSignalAfterArmEndsTheSleepAtOnce) {
  Dir d;
  Doorbell bell(d.path);
  Doorbell::ChildSignal catching(bell);
  Doorbell::Armed armed = bell.arm();
  ::raise(SIGCHLD);  // between arm() and sleep(): the sleep must not start
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(bell.sleep(armed, 10'000'000'000)) << "a signal is not an agent's ring";
  EXPECT_LT(seconds_since(t0), 5.0);
}

TEST(Doorbell, ChildSignalDuringTheSleepEndsIt) {
  Dir d;
  Doorbell bell(d.path);
  Doorbell::ChildSignal catching(bell);
  const pthread_t sleeper = ::pthread_self();
  std::thread other([sleeper] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ::pthread_kill(sleeper, SIGCHLD);
  });
  auto t0 = std::chrono::steady_clock::now();
  bell.sleep(bell.arm(), 10'000'000'000);
  EXPECT_LT(seconds_since(t0), 5.0);
  other.join();
}

TEST(Doorbell, TheOldSignalDispositionComesBack) {
  Dir d;
  Doorbell bell(d.path);
  struct sigaction before {}, after {};
  ::sigaction(SIGCHLD, nullptr, &before);
  { Doorbell::ChildSignal catching(bell); }
  ::sigaction(SIGCHLD, nullptr, &after);
  EXPECT_EQ(before.sa_handler, after.sa_handler);
}

}  // namespace
}  // namespace roofprof::preload
