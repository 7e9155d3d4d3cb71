// Software counters at user level only (exclude_kernel), as an unprivileged user gets them at
// perf_event_paranoid >= 2: what each event then counts is checked against the running kernel,
// and the backend names and refuses events accordingly.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/backend.hpp"
#include "counters/software_events.hpp"

namespace roofprof::counters {
namespace {

int open_counter(uint64_t config, bool exclude_kernel) {
  perf_event_attr a;
  std::memset(&a, 0, sizeof a);
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = config;
  a.exclude_hv = 1;
  a.exclude_kernel = exclude_kernel ? 1 : 0;
  return int(::syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
}

uint64_t read_counter(int fd) {
  uint64_t v = 0;
  EXPECT_EQ(::read(fd, &v, sizeof v), ssize_t(sizeof v));
  ::close(fd);
  return v;
}

// Page faults in user mode (stores to new pages), page faults in kernel mode (read() into new
// pages), context switches (sleeps), and CPU time.
void mixed_work() {
  const size_t len = 4 << 20;
  auto* user = static_cast<char*>(::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ::madvise(user, len, MADV_NOHUGEPAGE);  // one fault per 4 KiB page
  for (size_t i = 0; i < len; i += 4096) user[i] = 1;
  auto* kernel = static_cast<char*>(::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ::madvise(kernel, len, MADV_NOHUGEPAGE);
  int zero = ::open("/dev/zero", O_RDONLY);
  EXPECT_EQ(::read(zero, kernel, len), ssize_t(len));
  ::close(zero);
  for (int i = 0; i < 20; ++i) ::usleep(200);
  volatile double x = 0;
  for (int i = 0; i < 2000000; ++i) x = x + 1.0;
  ::munmap(user, len);
  ::munmap(kernel, len);
}

TEST(SoftwareEvents, UserLevelCountsAreWhatTheTableSays) {
  for (const SoftwareEvent& e : software_events()) {
    if (e.config == PERF_COUNT_SW_PAGE_FAULTS_MAJ || e.config == PERF_COUNT_SW_CPU_MIGRATIONS) continue;  // not provoked here
    const int whole_fd = open_counter(e.config, false);
    if (whole_fd < 0) GTEST_SKIP() << "kernel-side counting not permitted here (run as root)";
    const int user_fd = open_counter(e.config, true);
    ASSERT_GE(user_fd, 0) << e.name;
    mixed_work();
    const double user = double(read_counter(user_fd));
    const double whole = double(read_counter(whole_fd));
    switch (e.at_user_level) {
      case AtUserLevel::all:
        EXPECT_NEAR(user / whole, 1.0, 0.02) << e.name << ": time is not split by mode";
        break;
      case AtUserLevel::user_part:
        EXPECT_GE(user, 1024) << e.name << ": 1024 pages stored to in user mode";
        EXPECT_LE(user, whole - 1024) << e.name << ": the 1024 faults inside read() are the kernel's";
        break;
      case AtUserLevel::nothing:
        EXPECT_GT(whole, 0) << e.name;
        EXPECT_EQ(user, 0) << e.name << ": counted only in kernel mode";
        break;
    }
  }
}

TEST(SoftwareEvents, UserLevelBackendNamesWhatItCountsAndLeavesOutWhatItCannot) {
  auto b = make_perf_software_backend({}, /*user_level=*/true);
  ASSERT_EQ(b->events().size(), 2u);
  EXPECT_EQ(b->events()[0].name, "task-clock");
  EXPECT_EQ(b->events()[1].name, "page-faults:u");
  auto c = b->open(::gettid());
  // Members of a group opened on the running thread count from its next context switch (Linux
  // 6.18; the tracer opens groups of stopped threads, the agent enables the leader last).
  ::usleep(1000);
  const auto first = c->read();
  mixed_work();
  const auto second = c->read();
  EXPECT_GE(second.values.at(1) - first.values.at(1), 1024) << "user-mode faults are counted";

  try {
    make_perf_software_backend({"task-clock", "context-switches"}, true);
    ADD_FAILURE() << "context-switches at user level counts nothing: must be refused";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("perf_event_paranoid"), std::string::npos) << e.what();
  }
  // The names it gives are names it takes.
  EXPECT_EQ(make_perf_software_backend({"page-faults:u"}, true)->events().at(0).name, "page-faults:u");
}

}  // namespace
}  // namespace roofprof::counters
