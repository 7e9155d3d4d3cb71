#include "preload/record_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>

#include "common/error.hpp"
#include "preload/patch_format.h"

namespace roofprof::preload {

std::unique_ptr<RecordFile> RecordFile::open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) throw UserError(fmt::format("cannot open agent record file {}: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || size_t(st.st_size) < RP_HEADER_BYTES) {
    ::close(fd);
    throw UserError(fmt::format("{} is not an agent record file (too short)", path));
  }
  size_t bytes = size_t(st.st_size);
  void* map = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int err = errno;
  ::close(fd);
  if (map == MAP_FAILED) throw UserError(fmt::format("cannot map agent record file {}: {}", path, std::strerror(err)));
  // Read where records are, page by page: no readahead of the file's holes (ring.c does the same).
  ::madvise(map, bytes, MADV_RANDOM);
  auto* h = static_cast<rp_file_header*>(map);
  std::string problem;
  if (std::memcmp(h->magic, RP_FILE_MAGIC, 8) != 0) problem = "bad magic";
  else if (h->version != RP_FILE_VERSION) problem = fmt::format("version {} (expected {})", h->version, RP_FILE_VERSION);
  else if (h->n_events > RP_MAX_EVENTS) problem = "too many events";
  else if (h->n_times > 2 * RP_MAX_TIMED_GROUPS || h->n_times % 2) problem = "bad group times";
  else if (h->callers > 1) problem = "bad callers flag";
  else if (h->record_bytes != RP_RECORD_BYTES(h->n_events + h->n_times, h->scope, h->callers)) problem = "record size differs";
  else if (h->capacity == 0 || (h->capacity & (h->capacity - 1)) != 0) problem = "ring capacity is not a power of two";
  else if (h->table_offset + h->table_bytes > bytes || h->ring_offset + h->capacity * h->record_bytes > bytes ||
           h->states_offset + RP_STATES_BYTES > bytes || h->states_offset % alignof(rp_region_state) != 0)
    problem = "sections past the end of the file";
  if (!problem.empty()) {
    ::munmap(map, bytes);
    throw UserError(fmt::format("{} is not a usable agent record file: {}", path, problem));
  }
  return std::unique_ptr<RecordFile>(new RecordFile(path, map, bytes));
}

RecordFile::RecordFile(std::string path, void* map, size_t bytes)
    : path_(std::move(path)),
      map_(map),
      bytes_(bytes),
      header_(static_cast<rp_file_header*>(map)),
      table_(static_cast<const char*>(map) + header_->table_offset),
      ring_(static_cast<char*>(map) + header_->ring_offset),
      record_bytes_(header_->record_bytes) {}

RecordFile::~RecordFile() { ::munmap(map_, bytes_); }

rp_region_state* RecordFile::state_of(uint32_t agent_region) const {
  return rp_region_state_of(reinterpret_cast<rp_region_state*>(static_cast<char*>(map_) + header_->states_offset),
                            agent_region);
}

uint32_t RecordFile::region_flags(uint32_t agent_region) const {
  rp_region_state* s = state_of(agent_region);
  return s ? __atomic_load_n(&s->flags, __ATOMIC_RELAXED) : 0;
}

double RecordFile::timed_call_ns(uint32_t agent_region) const {
  rp_region_state* s = state_of(agent_region);
  if (!s) return 0;
  uint32_t n = __atomic_load_n(&s->timed_calls, __ATOMIC_RELAXED);
  return n ? double(__atomic_load_n(&s->timed_ns, __ATOMIC_RELAXED)) / n : 0;
}

bool RecordFile::sampled_fully(uint32_t agent_region) const {
  rp_region_state* s = state_of(agent_region);
  return s && __atomic_load_n(&s->timed_calls, __ATOMIC_RELAXED) >= RP_STATE_SAMPLE;
}

bool RecordFile::turn_off(uint32_t agent_region) {
  rp_region_state* s = state_of(agent_region);
  if (!s) return false;
  __atomic_fetch_or(&s->flags, RP_STATE_OFF, __ATOMIC_RELAXED);
  return true;
}

std::vector<uint32_t> RecordFile::regions_flagged(uint32_t flag) const {
  std::vector<uint32_t> out;
  auto* states = reinterpret_cast<const rp_region_state*>(static_cast<const char*>(map_) + header_->states_offset);
  for (uint32_t i = 0; i < RP_STATE_SLOTS; ++i)
    if (__atomic_load_n(&states[i].flags, __ATOMIC_RELAXED) & flag)
      out.push_back(i < RP_STATE_HOOKS ? i : RP_PATCH_REGION_FLAG | (i - RP_STATE_HOOKS));
  return out;
}

regions::Scope RecordFile::scope() const {
  return header_->scope == RP_SCOPE_THREAD ? regions::Scope::Thread : regions::Scope::Process;
}

std::string_view RecordFile::table() const {
  uint64_t len = __atomic_load_n(&header_->table_len, __ATOMIC_ACQUIRE);
  return {table_, size_t(std::min<uint64_t>(len, header_->table_bytes))};
}

size_t RecordFile::drain(const std::function<void(const Record&)>& fn, bool final) {
  constexpr uint64_t kReleaseEvery = 256;  // records between two stores of `tail`
  const uint64_t mask = header_->capacity - 1;
  uint64_t pos = __atomic_load_n(&header_->tail, __ATOMIC_RELAXED);
  const uint64_t head = __atomic_load_n(&header_->head, __ATOMIC_ACQUIRE);
  size_t delivered = 0;
  const size_t n = this->n_values();
  const size_t n_values = RP_RECORD_VALUES(n, header_->scope);
  Record r;  // once: counts past n_events stay zero, and no record is cleared field by field
  for (; pos < head; ++pos) {
    if (pos % kReleaseEvery == 0) __atomic_store_n(&header_->tail, pos, __ATOMIC_RELEASE);  // slots for the agent
    const rp_record& s = *reinterpret_cast<const rp_record*>(ring_ + (pos & mask) * record_bytes_);
    if (__atomic_load_n(&s.seq, __ATOMIC_ACQUIRE) != pos + 1) {
      if (!final) break;  // still being written: next time
      ++torn_;            // reserved by a thread that died before publishing it
      continue;
    }
    r.kind = RecordKind(s.kind);
    r.reason = regions::close_reason(s.reason);
    r.region = s.region;
    r.pid = s.pid;
    r.tid = s.tid;
    r.sp = s.sp;
    r.ret = header_->callers ? s.counts[n_values] : 0;
    r.time_ns = s.time_ns;
    r.probe_ns = s.probe_ns;
    r.probe_boundaries = s.probe_boundaries;
    r.has_counts = (s.flags & RP_REC_COUNTS) != 0;
    r.has_process_counts = n_values > n && (s.flags & RP_REC_PROCESS_COUNTS) != 0;
    for (size_t i = 0; i < n_values; ++i) (i < n ? r.counts[i] : r.process_counts[i - n]) = s.counts[i];
    if (r.kind >= RecordKind::Enter && r.kind <= RecordKind::SpanResume) {
      fn(r);
      ++delivered;
    }
  }
  __atomic_store_n(&header_->tail, pos, __ATOMIC_RELEASE);
  return delivered;
}

uint64_t RecordFile::claimed() const { return __atomic_load_n(&header_->head, __ATOMIC_ACQUIRE); }
uint64_t RecordFile::drained() const { return __atomic_load_n(&header_->tail, __ATOMIC_ACQUIRE); }
bool RecordFile::exited() const { return (__atomic_load_n(&header_->flags, __ATOMIC_ACQUIRE) & RP_F_EXITED) != 0; }
bool RecordFile::consumer_lost() const {
  return (__atomic_load_n(&header_->flags, __ATOMIC_ACQUIRE) & RP_F_NO_CONSUMER) != 0;
}
bool RecordFile::table_full() const { return (__atomic_load_n(&header_->flags, __ATOMIC_ACQUIRE) & RP_F_TABLE_FULL) != 0; }
uint64_t RecordFile::lost() const { return __atomic_load_n(&header_->lost, __ATOMIC_ACQUIRE); }
uint64_t RecordFile::shadow_overflow() const { return __atomic_load_n(&header_->shadow_overflow, __ATOMIC_ACQUIRE); }
uint64_t RecordFile::reentered() const { return __atomic_load_n(&header_->reentered, __ATOMIC_ACQUIRE); }
uint64_t RecordFile::evictions() const { return __atomic_load_n(&header_->evictions, __ATOMIC_ACQUIRE); }
void RecordFile::set_consumer(int pid) { __atomic_store_n(&header_->consumer_pid, pid, __ATOMIC_RELEASE); }

}  // namespace roofprof::preload
