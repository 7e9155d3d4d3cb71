#include "counters/native_counters.hpp"

#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "preload/native_format.h"

namespace roofprof::counters {
namespace {

constexpr const char* kSlotNames[RP_NATIVE_SLOTS] = RP_NATIVE_SLOT_NAMES;

// The thread's fs base (its thread control block), or 0 while it has none or is running.
uint64_t fs_base_of(pid_t tid) {
  errno = 0;
  long v = ::ptrace(PTRACE_PEEKUSER, tid, offsetof(struct user_regs_struct, fs_base), nullptr);
  return errno ? 0 : uint64_t(v);
}

class NativeThreadCounters : public ThreadCounters {
 public:
  explicit NativeThreadCounters(pid_t tid) : tid_(tid) {
    tcb_ = fs_base_of(tid);
    // A thread's block exists from its creation (clone's new TLS): what it holds now is not
    // this thread's. The first thread of a program gets its block from the dynamic linker,
    // zeroed, later than exec: then zero is its start.
    if (tcb_ && !slots(base_)) tcb_ = 0;
  }
  CounterValues read() override {
    CounterValues out{std::vector<double>(RP_NATIVE_SLOTS, 0.0), false};
    if (!tcb_) tcb_ = fs_base_of(tid_);  // succeeds only while the thread is stopped
    std::array<uint64_t, RP_NATIVE_SLOTS> now{};
    if (!tcb_ || !slots(now)) return out;  // no block yet: nothing counted yet
    for (size_t i = 0; i < now.size(); ++i) out.values[i] = double(now[i] - base_[i]);
    return out;
  }

 private:
  bool slots(std::array<uint64_t, RP_NATIVE_SLOTS>& out) const {
    iovec local{out.data(), sizeof(uint64_t) * out.size()};
    iovec remote{reinterpret_cast<void*>(tcb_ + RP_NATIVE_SLOT_OFFSET(0)), local.iov_len};
    return ::process_vm_readv(tid_, &local, 1, &remote, 1, 0) == ssize_t(local.iov_len);
  }
  pid_t tid_;
  uint64_t tcb_ = 0;
  std::array<uint64_t, RP_NATIVE_SLOTS> base_{};
};

class NativeBackend : public Backend {
 public:
  NativeBackend() {
    for (const char* n : kSlotNames) events_.push_back({n, "flops"});
  }
  std::string name() const override { return "native"; }
  const std::vector<EventInfo>& events() const override { return events_; }
  std::unique_ptr<ThreadCounters> open(pid_t tid) override { return std::make_unique<NativeThreadCounters>(tid); }
  std::vector<std::vector<perf_event_attr>> thread_groups() const override {
    std::vector<perf_event_attr> group;
    for (int slot = 0; slot < RP_NATIVE_SLOTS; ++slot) {
      perf_event_attr a{};
      a.size = sizeof a;
      a.type = RP_NATIVE_EVENT_TYPE;
      a.config = uint64_t(slot);
      group.push_back(a);
    }
    return {group};
  }

 private:
  std::vector<EventInfo> events_;
};

}  // namespace

std::unique_ptr<Backend> make_native_backend() { return std::make_unique<NativeBackend>(); }

int native_events_at(const std::vector<EventInfo>& events) {
  for (size_t i = 0; i + RP_NATIVE_SLOTS <= events.size(); ++i) {
    bool all = true;
    for (int s = 0; s < RP_NATIVE_SLOTS && all; ++s) all = events[i + s].name == kSlotNames[s];
    if (all) return int(i);
  }
  return -1;
}

bool is_native_class(const std::vector<EventInfo>& events, size_t e) {
  const int at = native_events_at(events);
  return at >= 0 && e >= size_t(at) && e < size_t(at) + RP_NATIVE_SLOTS;
}

std::optional<double> native_w(const std::vector<double>& values, int at) {
  if (at < 0 || size_t(at) + RP_NATIVE_SLOTS > values.size()) return std::nullopt;
  double w = 0;
  for (int s = 0; s < RP_NATIVE_SLOTS; ++s) {
    if (!is_counted(values[size_t(at + s)])) return std::nullopt;
    w += values[size_t(at + s)];
  }
  return w;
}

}  // namespace roofprof::counters
