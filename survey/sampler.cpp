#include "survey/sampler.hpp"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "counters/perf_event_open.hpp"
#include "survey/stack_unwind.hpp"

namespace roofprof::survey {

namespace {

// 8 MiB: about 500 samples with their stack copies, 50 ms at 10 kHz on one CPU (read every 10 ms,
// later when a loaded machine runs roofprof late); 1 MiB without: about 3000 samples of deep call
// chains. Halved down to kMinDataPages where the locked-memory limit refuses it (an ordinary user).
constexpr size_t kDataPagesWithStacks = 2048;
constexpr size_t kDataPages = 256;
constexpr size_t kMinDataPages = 64;
constexpr uint64_t kKernelStart = 0xffff800000000000ull;
constexpr int64_t kUnwindBudgetNs = 5'000'000;
constexpr size_t kMaxBacklogBytes = size_t(256) << 20;

// The registers sampled (PERF_REG_X86_*, asm/perf_regs.h): AX..IP (0-8) and R8..R15 (16-23),
// the kernel writes them in bit order.
constexpr uint64_t kRegsMask = 0x1ffull | (0xffull << 16);
// PERF_REG_X86_* bit -> libunwind's UNW_X86_64_* number (UserRegs).
constexpr int kUnwReg[24] = {0 /*AX*/, 3 /*BX*/, 2 /*CX*/, 1 /*DX*/, 4 /*SI*/, 5 /*DI*/, 6 /*BP*/, 7 /*SP*/,
                             16 /*IP*/, -1, -1, -1, -1, -1, -1, -1, 8, 9, 10, 11, 12, 13, 14, 15};

perf_event_attr sampling_attr(unsigned rate_hz, bool copy_stacks) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 1'000'000'000ull / rate_hz;  // ns of CPU time
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
  if (copy_stacks) {
    a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = kRegsMask;
    a.sample_stack_user = uint32_t(kStackCopyBytes);
  }
  a.disabled = 1;
  a.enable_on_exec = 1;
  a.inherit = 1;
  a.mmap = 1;
  a.mmap2 = 1;
  a.exclude_callchain_kernel = 1;
  a.exclude_hv = 1;
  a.wakeup_events = 0;
  return a;
}

}  // namespace

// A sample whose copied stack is still to be unwound: the copy kept to the part that is stack.
struct Sampler::Pending {
  Sample sample;
  UserRegs regs{};
  std::vector<uint8_t> stack;
};

namespace {

// The record body after perf_event_header, as sampling_attr asks for it: into `out` when it
// cannot be unwound with CFI (no stack copied, `copy_stacks` false), else into `pending`.
void read_sample(const uint8_t* p, const uint8_t* end, bool copy_stacks, Samples& out,
                 std::vector<Sampler::Pending>& pending) {
  auto u64 = [&p, end]() {
    uint64_t v = 0;
    if (p + 8 <= end) std::memcpy(&v, p, 8);
    p += 8;
    return v;
  };
  Sample s;
  s.ip = u64();
  uint64_t pidtid = u64();
  s.pid = uint32_t(pidtid);
  s.tid = uint32_t(pidtid >> 32);
  uint64_t nr = u64();
  for (uint64_t i = 0; i < nr && p < end; ++i) {
    uint64_t a = u64();
    if (a >= uint64_t(PERF_CONTEXT_MAX)) continue;  // PERF_CONTEXT_USER and friends
    if (a == s.ip && s.callers.empty()) continue;   // the chain starts with the sampled ip
    s.callers.push_back(a);
  }
  if (!copy_stacks) {
    out.samples.push_back(std::move(s));
    return;
  }
  UserRegs regs{};
  const uint64_t abi = u64();  // PERF_SAMPLE_REGS_ABI_NONE (0): a kernel thread, no user registers
  if (abi != 0)
    for (int bit = 0; bit < 24; ++bit)
      if (kRegsMask >> bit & 1) {
        const uint64_t v = u64();
        regs[size_t(kUnwReg[bit])] = v;
      }
  const uint64_t size = u64();
  const uint8_t* stack = p;
  p += size;
  const uint64_t dyn_size = size ? u64() : 0;  // the part of the copy that is stack
  const bool in_kernel = s.ip >= kKernelStart;
  if (abi != 0 && size && p <= end && (regs[16] == s.ip || in_kernel)) {
    pending.push_back({std::move(s), regs, std::vector<uint8_t>(stack, stack + std::min(size, dyn_size))});
    return;
  }
  out.samples.push_back(std::move(s));
}

// The kernel's frame-pointer chain is kept unless the copied stack unwinds with CFI.
void unwind_sample(Sampler::Pending& ps, StackUnwinder& unwinder, Samples& out) {
  Sample& s = ps.sample;
  auto cfi = unwinder.callers(out.mappings, s.pid, ps.regs, ps.stack);
  if (cfi) {
    // In the kernel (a system call, a page fault) the user registers are where the program
    // entered it: that instruction is the first "caller", as in the kernel's chain.
    if (s.ip >= kKernelStart) cfi->insert(cfi->begin(), ps.regs[16]);
    s.callers = std::move(*cfi);
    s.unwound = true;
  }
  out.samples.push_back(std::move(s));
}

void read_mmap2(const uint8_t* p, const uint8_t* end, Samples& out) {
  struct Head {
    uint32_t pid, tid;
    uint64_t addr, len, pgoff;
    uint32_t maj, min;
    uint64_t ino, ino_generation;
    uint32_t prot, flags;
  } h{};
  if (p + sizeof h > end) return;
  std::memcpy(&h, p, sizeof h);
  if (!(h.prot & PROT_EXEC)) return;
  const char* name = reinterpret_cast<const char*>(p + sizeof h);
  std::string path(name, strnlen(name, size_t(end - (p + sizeof h))));
  if (path.empty() || path[0] != '/') return;  // [vdso], anonymous code
  out.mappings.push_back({h.pid, h.addr, h.len, h.pgoff, std::move(path)});
}

}  // namespace

struct Sampler::Ring {
  counters::PerfFd fd;
  void* base = MAP_FAILED;
  size_t size = 0;
  ~Ring() {
    if (base != MAP_FAILED) ::munmap(base, size);
  }
  // Mappings and lost counts into `out`, sample bodies into `pending`.
  void drain(std::vector<std::vector<uint8_t>>& pending, Samples& out);
};

// The kernel maps no ring of an inherited per-task event (all its threads would write one
// buffer): one event per CPU, as perf record does, each with its ring.
Sampler::Sampler(pid_t pid, unsigned rate_hz, bool copy_stacks)
    : unwinder_(copy_stacks ? std::make_unique<StackUnwinder>() : nullptr) {
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  for (int cpu = 0; cpu < cpus; ++cpu) {
    perf_event_attr a = sampling_attr(rate_hz, copy_stacks);
    a.exclude_kernel = user_only_;
    int fd = counters::perf_event_open_fd(a, pid, cpu, -1);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !user_only_) {
      // perf_event_paranoid 2 lets an ordinary user sample their own program's user space only.
      user_only_ = true;
      a.exclude_kernel = 1;
      fd = counters::perf_event_open_fd(a, pid, cpu, -1);
    }
    if (fd < 0 && errno == ENODEV) continue;  // an offline CPU
    if (fd < 0)
      throw UserError(fmt::format("cannot sample the program (perf_event_open cpu-clock on CPU {}: {}); run "
                                  "roofprof doctor", cpu, std::strerror(errno)));
    auto ring = std::make_unique<Ring>();
    ring->fd = counters::PerfFd(fd);
    for (size_t pages = copy_stacks ? kDataPagesWithStacks : kDataPages; ring->base == MAP_FAILED && pages >= kMinDataPages; pages /= 2) {
      ring->size = page * (pages + 1);
      ring->base = ::mmap(nullptr, ring->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (ring->base == MAP_FAILED && errno != EPERM && errno != ENOMEM) break;
    }
    if (ring->base == MAP_FAILED)
      throw UserError(fmt::format("cannot map the sampling buffer ({}); raise "
                                  "/proc/sys/kernel/perf_event_mlock_kb", std::strerror(errno)));
    rings_.push_back(std::move(ring));
  }
  if (rings_.empty()) throw UserError("cannot sample the program: no CPU is online");
}

Sampler::~Sampler() = default;

// Every ring's mappings first: a thread may map a library on one CPU and be sampled in it on another.
// Unwinding takes longer than reading: while the program runs, at most kUnwindBudget of it per
// call, so that the rings are read again in time; the rest waits (unless the backlog's copies
// exceed kMaxBacklogBytes) and is unwound by later calls, all of it by drain(out, true).
void Sampler::drain(Samples& out, bool all) {
  std::vector<std::vector<uint8_t>> records;
  for (auto& r : rings_) r->drain(records, out);
  for (const auto& rec : records) {
    const size_t before = pending_.size();
    read_sample(rec.data(), rec.data() + rec.size(), bool(unwinder_), out, pending_);
    if (pending_.size() > before) backlog_bytes_ += pending_.back().stack.size();
  }
  const int64_t deadline = monotonic_ns() + kUnwindBudgetNs;
  size_t done = 0;
  for (; done < pending_.size() && (all || backlog_bytes_ > kMaxBacklogBytes || monotonic_ns() < deadline); ++done) {
    backlog_bytes_ -= pending_[done].stack.size();
    unwind_sample(pending_[done], *unwinder_, out);
  }
  pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(done));
}

void Sampler::Ring::drain(std::vector<std::vector<uint8_t>>& pending, Samples& out) {
  auto* meta = static_cast<perf_event_mmap_page*>(base);
  const uint8_t* data = static_cast<const uint8_t*>(base) + meta->data_offset;
  const uint64_t size = meta->data_size;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  auto copy = [&](uint64_t from, size_t n, uint8_t* to) {  // the ring wraps around
    const size_t at = size_t(from % size), first = std::min<size_t>(n, size - at);
    std::memcpy(to, data + at, first);
    std::memcpy(to + first, data, n - first);
  };
  std::vector<uint8_t> rec;
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header h;
    copy(tail, sizeof h, reinterpret_cast<uint8_t*>(&h));
    if (h.size < sizeof h || tail + h.size > head) break;
    rec.resize(h.size);
    copy(tail, h.size, rec.data());
    const uint8_t* body = rec.data() + sizeof h;
    const uint8_t* end = rec.data() + h.size;
    if (h.type == PERF_RECORD_SAMPLE) pending.emplace_back(body, end);
    else if (h.type == PERF_RECORD_MMAP2) read_mmap2(body, end, out);
    else if (h.type == PERF_RECORD_LOST && h.size >= sizeof h + 16) {
      uint64_t lost = 0;
      std::memcpy(&lost, body + 8, 8);
      out.lost += lost;
    }
    tail += h.size;
  }
  __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

}  // namespace roofprof::survey
