#include "survey/sampler.hpp"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "common/error.hpp"
#include "counters/perf_event_open.hpp"

namespace roofprof::survey {

namespace {

constexpr size_t kDataPages = 256;  // 1 MiB: about 3000 samples of deep call chains

perf_event_attr sampling_attr(unsigned rate_hz) {
  perf_event_attr a{};
  a.size = sizeof a;
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = 1'000'000'000ull / rate_hz;  // ns of CPU time
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
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

// The record body after perf_event_header, as sampling_attr asks for it.
void read_sample(const uint8_t* p, const uint8_t* end, Samples& out) {
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
  void drain(Samples& out);
};

// The kernel maps no ring of an inherited per-task event (all its threads would write one
// buffer): one event per CPU, as perf record does, each with its ring.
Sampler::Sampler(pid_t pid, unsigned rate_hz) {
  const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  for (int cpu = 0; cpu < cpus; ++cpu) {
    perf_event_attr a = sampling_attr(rate_hz);
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
    ring->size = page * (kDataPages + 1);
    ring->base = ::mmap(nullptr, ring->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring->base == MAP_FAILED)
      throw UserError(fmt::format("cannot map the sampling buffer ({}); raise "
                                  "/proc/sys/kernel/perf_event_mlock_kb", std::strerror(errno)));
    rings_.push_back(std::move(ring));
  }
  if (rings_.empty()) throw UserError("cannot sample the program: no CPU is online");
}

Sampler::~Sampler() = default;

void Sampler::drain(Samples& out) {
  for (auto& r : rings_) r->drain(out);
}

void Sampler::Ring::drain(Samples& out) {
  auto* meta = static_cast<perf_event_mmap_page*>(base);
  const uint8_t* data = static_cast<const uint8_t*>(base) + meta->data_offset;
  const uint64_t size = meta->data_size;
  uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = meta->data_tail;
  std::vector<uint8_t> rec;
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header h;
    for (size_t i = 0; i < sizeof h; ++i) reinterpret_cast<uint8_t*>(&h)[i] = data[(tail + i) % size];
    if (h.size < sizeof h || tail + h.size > head) break;
    rec.resize(h.size);
    for (size_t i = 0; i < h.size; ++i) rec[i] = data[(tail + i) % size];
    const uint8_t* body = rec.data() + sizeof h;
    const uint8_t* end = rec.data() + h.size;
    if (h.type == PERF_RECORD_SAMPLE) read_sample(body, end, out);
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
