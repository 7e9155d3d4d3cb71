#include "preload/doorbell.hpp"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <time.h>

#include "common/error.hpp"

namespace roofprof::preload {

namespace {

// The bell SIGCHLD rings: one at a time in a process (a run has one reader).
std::atomic<rp_doorbell*> g_child_bell{nullptr};

void wake(rp_doorbell* b) {
  __atomic_fetch_add(&b->seq, 1, __ATOMIC_RELEASE);
  ::syscall(SYS_futex, &b->seq, FUTEX_WAKE, 0x7fffffff, nullptr, nullptr, 0);
}

void on_child(int) {
  int saved = errno;
  if (rp_doorbell* b = g_child_bell.load(std::memory_order_acquire)) wake(b);
  errno = saved;
}

}  // namespace

Doorbell::Doorbell(const std::string& dir) {
  std::string path = dir + "/" + RP_DOORBELL_NAME;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw UserError(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  void* m = MAP_FAILED;
  if (::ftruncate(fd, RP_DOORBELL_BYTES) == 0)
    m = ::mmap(nullptr, RP_DOORBELL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (m == MAP_FAILED) throw UserError(fmt::format("cannot map {}: {}", path, std::strerror(err)));
  bell_ = static_cast<rp_doorbell*>(m);
}

Doorbell::~Doorbell() {
  rp_doorbell* mine = bell_;
  g_child_bell.compare_exchange_strong(mine, nullptr);
  ::munmap(bell_, RP_DOORBELL_BYTES);
}

Doorbell::Armed Doorbell::arm() {
  Armed a{__atomic_load_n(&bell_->seq, __ATOMIC_ACQUIRE), rings()};
  __atomic_store_n(&bell_->waiting, 1u, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_SEQ_CST);  // pairs with the agent's (preload/agent/doorbell.c)
  return a;
}

bool Doorbell::sleep(Armed armed, int64_t timeout_ns) {
  if (timeout_ns > 0) {
    timespec ts{time_t(timeout_ns / 1'000'000'000), long(timeout_ns % 1'000'000'000)};
    // EAGAIN: rung since arm(); EINTR: a signal; ETIMEDOUT: nothing happened.
    ::syscall(SYS_futex, &bell_->seq, FUTEX_WAIT, armed.seq, &ts, nullptr, 0);
  }
  disarm();
  return rings() != armed.rings;
}

void Doorbell::disarm() { __atomic_store_n(&bell_->waiting, 0u, __ATOMIC_RELAXED); }

uint32_t Doorbell::rings() const { return __atomic_load_n(&bell_->rings, __ATOMIC_ACQUIRE); }

Doorbell::ChildSignal::ChildSignal(Doorbell& bell) {
  g_child_bell.store(bell.bell_, std::memory_order_release);
  struct sigaction sa {};
  sa.sa_handler = on_child;  // no SA_RESTART: a wait interrupted by it returns at once
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCHLD, &sa, &old_);
}

Doorbell::ChildSignal::~ChildSignal() { sigaction(SIGCHLD, &old_, nullptr); }

}  // namespace roofprof::preload
