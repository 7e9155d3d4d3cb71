#pragma once
// The record file of one process of the in-process agent (layout: preload/record_format.h),
// read while the agent writes it: drain() consumes what is published and frees the ring
// slots, so the agent can go on; after the process has ended, drain(final) also steps over
// slots a killed thread reserved but never filled.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "preload/record_format.h"
#include "regions/tracker.hpp"

namespace roofprof::preload {

enum class RecordKind : uint8_t {
  Enter = RP_ENTER,
  StackAt = RP_STACK_AT,
  ThreadExit = RP_THREAD_EXIT,
  ProcessExit = RP_PROCESS_EXIT,
  SpanStart = RP_SPAN_START,
  SpanStop = RP_SPAN_STOP,
  SpanResume = RP_SPAN_RESUME,
};

struct Record {
  RecordKind kind = RecordKind::Enter;
  regions::CloseReason reason = regions::CloseReason::Return;
  uint32_t region = 0;  // agent region id (Enter, Span*)
  int pid = 0;
  regions::Tid tid = 0;
  uint64_t sp = 0;
  uint64_t ret = 0;  // Enter: the call's return address (where it was called from)
  int64_t time_ns = 0;
  int64_t probe_ns = 0;           // the thread's probe time up to time_ns (record_format.h)
  uint64_t probe_boundaries = 0;  // its boundaries up to here
  bool has_counts = false;                        // the thread's own
  std::array<uint64_t, RP_MAX_VALUES> counts{};  // the first n_values() are meaningful (record_format.h)
  bool has_process_counts = false;                        // the process's (scope=process files)
  std::array<uint64_t, RP_MAX_VALUES> process_counts{};  // likewise
};

class RecordFile {
 public:
  // Maps the file. Throws UserError when it is not a record file of this version.
  static std::unique_ptr<RecordFile> open(const std::string& path);
  ~RecordFile();
  RecordFile(const RecordFile&) = delete;
  RecordFile& operator=(const RecordFile&) = delete;

  const std::string& path() const { return path_; }
  int pid() const { return header_->pid; }
  int ppid() const { return header_->ppid; }
  size_t n_events() const { return header_->n_events; }
  // A snapshot's values: the events' counts, then each timed group's two times.
  size_t n_values() const { return size_t(header_->n_events) + header_->n_times; }
  regions::Scope scope() const;
  int64_t start_ns() const { return header_->start_ns; }
  // Table lines published so far (record_format.h).
  std::string_view table() const;

  // Calls `fn` for every record published since the last drain, in ring order, and frees
  // their slots. Stops at the first slot not published yet, unless `final` (the process is
  // gone): then every position up to the agent's head is visited and unpublished ones are
  // counted in torn(). Returns the number of records delivered.
  size_t drain(const std::function<void(const Record&)>& fn, bool final = false);

  // Ring positions: claimed by the agent's threads so far (the head) and drained (the tail).
  uint64_t claimed() const;
  uint64_t drained() const;
  // Records pending (claimed, not drained) at which the agent rings the reader's doorbell.
  uint64_t mark() const { return RP_DOORBELL_MARK(header_->capacity, header_->record_bytes); }
  bool exited() const;        // the process-exit record is written
  bool consumer_lost() const; // the agent stopped because nobody drained the ring
  bool table_full() const;
  uint64_t lost() const;
  uint64_t shadow_overflow() const;
  uint64_t reentered() const;
  uint64_t evictions() const;  // cache evictions before region entries (--cache-state cold)
  uint64_t torn() const { return torn_; }
  // Marks this process as the one draining the ring.
  void set_consumer(int pid);

  // Region states (record_format.h): an agent region word's flags (0 without a state), the
  // regions with `flag` set, and stopping the agent from probing one (false: it has no state).
  uint32_t region_flags(uint32_t agent_region) const;
  // The mean of the calls the agent timed for its decision (0: none timed), and whether it has
  // timed all it times (RP_STATE_SAMPLE).
  double timed_call_ns(uint32_t agent_region) const;
  bool sampled_fully(uint32_t agent_region) const;
  std::vector<uint32_t> regions_flagged(uint32_t flag) const;
  bool turn_off(uint32_t agent_region);
  // Counters only where cheap: the factor the agent applies (0: off) and what counters add to a
  // call, from its calibration (0: not measured).
  uint32_t cheap_factor() const { return header_->cheap_factor; }
  int64_t counter_call_ns() const { return __atomic_load_n(&header_->counter_call_ns, __ATOMIC_RELAXED); }

 private:
  RecordFile(std::string path, void* map, size_t bytes);
  rp_region_state* state_of(uint32_t agent_region) const;
  std::string path_;
  void* map_;
  size_t bytes_;
  rp_file_header* header_;
  const char* table_;
  char* ring_;  // slot p at ring_ + (p % capacity) * record_bytes_
  size_t record_bytes_;
  uint64_t torn_ = 0;
};

}  // namespace roofprof::preload
