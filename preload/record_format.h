/* Binary layout of an agent record file: one file per process, written by the C agent
 * (preload/agent/) through a MAP_SHARED mapping and read by the C++ side
 * (preload/record_file.hpp) while the program runs and after it ends. Shared fields are
 * plain integers accessed with the __atomic builtins on both sides.
 *
 *   [header, 4 KiB] [table: text lines, RP_TABLE_BYTES] [region states] [ring: capacity * record_bytes]
 *
 * The ring is a bounded multi-producer, single-consumer queue. A producer reserves position p
 * with an atomic add on `head`, waits until p < tail + capacity (the consumer is done with the
 * slot's previous record), writes the record into slot p % capacity and publishes it by storing
 * `seq = p + 1` last. The consumer reads slots in position order, so the records of one thread
 * come out in the order that thread wrote them, and stores `tail` (the next position it reads)
 * every few hundred records and at the end of each drain: it never writes to a slot, so a slot's
 * cache line goes from producer to consumer once and back once per lap. A zero-filled (sparse)
 * file is an empty ring: seq 0 is not p + 1 for any p.
 *
 * Table lines (appended under the agent's lock, then `table_len` is published):
 *   M <is_main> <bias> <path>        a module the agent scanned (realpath), loaded at <bias>
 *                                    (hex: runtime address = bias + link-time address)
 *   R <id> <spec> <symbol>           agent region id <id>: raw symbol name matched spec <spec>
 *   H <id> <module path>             a GOT slot of <module> now calls region <id>'s trampoline
 *   C <calls> <ns> <timed> <clock>   the agent's calibration at start: <calls> calls of an empty
 *                                    function through a patched entry took <ns> in all, of which
 *                                    the boundaries timed <timed> themselves (probe_ns), and
 *                                    <clock> as many calls with the clock alone (no counter
 *                                    read); the records of both loops carry region
 *                                    RP_CALIBRATION_REGION (patch_format.h), the counted first
 *   W <text>                         something the agent could not do
 * (the tags are RP_TABLE_* below). */
#ifndef ROOFPROF_PRELOAD_RECORD_FORMAT_H
#define ROOFPROF_PRELOAD_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "preload/native_format.h" /* RP_NATIVE_EVENT_TYPE */
#include "regions/close_reason.h" /* enum rp_reason: why a STACK_AT / exit record closes instances */

#define RP_FILE_MAGIC "RFAGENT1"

/* Table line tags (the first word of a line; the layout above). String literals, so that the
 * agent's format strings begin with them: RP_TABLE_REGION " %u %u %s". */
#define RP_TABLE_MODULE "M"
#define RP_TABLE_REGION "R"
#define RP_TABLE_HOOKED "H"
#define RP_TABLE_CALIBRATION "C"
#define RP_TABLE_WARNING "W"
/* The agent's format of each line (printf), so that a test can write lines as the agent does. */
#define RP_TABLE_MODULE_FORMAT RP_TABLE_MODULE " %d %lx %s"           /* is_main, bias, path */
#define RP_TABLE_REGION_FORMAT RP_TABLE_REGION " %u %u %s"           /* id, spec, symbol */
#define RP_TABLE_HOOKED_FORMAT RP_TABLE_HOOKED " %u %s"              /* id, module path */
#define RP_TABLE_CALIBRATION_FORMAT RP_TABLE_CALIBRATION " %d %lld %lld %lld" /* calls, ns, timed, clock */
#define RP_FILE_VERSION 8u
#define RP_HEADER_BYTES 4096u
#define RP_TABLE_BYTES (1u << 20)
#define RP_MAX_EVENTS 24
#define RP_MAX_TIMED_GROUPS 6 /* hardware groups: their times follow the events in a snapshot */
/* ROOFPROF_AGENT_EVENTS, what roofprof (run/agent_env.cpp) tells the agent (config.c) to count:
 * perf groups separated by ';', each a ','-separated list of events "TYPE:CONFIG[:CONFIG1[:FLAGS]]"
 * (decimal perf_event_attr type, config, config1; FLAGS the RP_EVENT_* bits, absent:
 * exclude_kernel as ROOFPROF_AGENT_USER_LEVEL says), the leader first. A group is timed (read with its
 * time_enabled and time_running, whose deltas scale its counts) unless its leader is a software
 * event (those are never rotated off a counter). */
#define RP_EVENT_EXCLUDE_KERNEL 0x1u /* perf_event_attr.exclude_kernel */
#define RP_EVENT_EXCLUSIVE 0x4u      /* perf_event_attr.exclusive */
/* (0x2 is not used: the agent never pins a group, see preload/agent_events.cpp) */
#define RP_EVENTS_GROUP_SEP ';'
#define RP_EVENTS_EVENT_SEP ','
/* native counting's slots (native_format.h, RP_NATIVE_EVENT_TYPE) are never rotated either */
#define RP_GROUP_TIMED(leader_type) ((leader_type) != 1u /* PERF_TYPE_SOFTWARE */ && (leader_type) != RP_NATIVE_EVENT_TYPE)
/* A snapshot: n_events counts, then (time_enabled, time_running) of each timed group */
#define RP_MAX_VALUES (RP_MAX_EVENTS + 2 * RP_MAX_TIMED_GROUPS)
#define RP_MAX_DEPTH 256 /* hooked calls in progress per thread (shadow stack) */
#define RP_DEFAULT_RING_SLOTS (1u << 16)
#define RP_FILE_SUFFIX ".rfa"

enum rp_kind {
  RP_ENTER = 1,        /* entry of function region `region` with return-address slot `sp` */
  RP_STACK_AT = 2,     /* the thread's stack pointer is now `sp` (instances entered below close) */
  RP_THREAD_EXIT = 3,  /* the thread exits: close what it has open */
  RP_PROCESS_EXIT = 4, /* exit() of the process: close everything open in it */
  /* A span patch (preload/patch_format.h) of `region` was reached: an inlined copy's entry
   * point, an exit, a re-entry (regions::Tracker span_start, span_stop, span_resume). */
  RP_SPAN_START = 5,
  RP_SPAN_STOP = 6,
  RP_SPAN_RESUME = 7,
};

#define RP_REC_COUNTS 0x1u         /* counts[0..n_events) hold the thread's own counts */
#define RP_REC_PROCESS_COUNTS 0x2u /* counts[n_events..2 n_events) hold the process's (scope=process) */

struct rp_record {
  uint64_t seq;   /* position + 1 once published (see above), stored last */
  uint8_t kind;   /* enum rp_kind */
  uint8_t reason; /* enum rp_reason */
  uint8_t flags;  /* RP_REC_* */
  uint8_t pad;
  uint32_t region; /* agent region id (RP_ENTER) */
  int32_t pid, tid;
  uint64_t sp;
  int64_t time_ns;                 /* CLOCK_MONOTONIC */
  /* The thread's probe overhead up to time_ns (docs/preload.md, "What a boundary costs"): the
   * time its boundaries spent in the agent, timed at each boundary from the agent's first clock
   * read to its last, and how many boundaries had their parts outside those reads (the
   * trampolines' register saves: the calibration's untimed residual) up to here. */
  int64_t probe_ns;
  uint64_t probe_boundaries;
  /* Snapshots of n_values = n_events + n_times values each (the header's): the events'
   * cumulative counts in the order of ROOFPROF_AGENT_EVENTS (raw counts in a timed group), then
   * time_enabled and time_running of each timed group (hardware events, which the kernel may
   * rotate off the counters: the reader scales their deltas). The thread's own snapshot; then,
   * in a file of scope=process, the whole process's (every thread, exited ones included); then,
   * in a file whose header has `callers` set (run --group-by caller), the call's return address
   * of an RP_ENTER record (read from `sp` before the exit stub replaces it), at
   * counts[RP_RECORD_VALUES(n_values, scope)] */
  uint64_t counts[2 * RP_MAX_VALUES + 1];
};
/* A slot holds the file's n_values only (twice in scope=process, and the return
 * address with `callers`): slots are RP_RECORD_BYTES(n_events, scope, callers) apart (56 bytes
 * with no event),
 * so that the ring a program fills and roofprof drains takes the cache and page-cache room its
 * records need. */
enum rp_scope { RP_SCOPE_PROCESS = 0, RP_SCOPE_THREAD = 1 };
#define RP_RECORD_VALUES(n_values, scope) ((n_values) * ((scope) == RP_SCOPE_PROCESS ? 2u : 1u))
#define RP_RECORD_BYTES(n_values, scope, callers) \
  (offsetof(struct rp_record, counts) + sizeof(uint64_t) * (RP_RECORD_VALUES(n_values, scope) + ((callers) ? 1u : 0u)))

/* Region states: one per agent region (a GOT hook's region id, below RP_STATE_HOOKS) and per
 * entry patch (RP_STATE_HOOKS + the patch id), RP_STATE_SLOTS in all; regions beyond have none
 * (always counted, never turned off). Shared between the agent and roofprof. */
#define RP_STATE_HOOKS 4096u
#define RP_STATE_SLOTS 16384u
#define RP_STATE_SAMPLE 16u /* calls timed before the agent decides whether counters are cheap */
#define RP_STATE_CLOCK_ONLY 0x1u /* set by the agent: the region's calls are shorter than the
                                    header's cheap_factor times what counters cost a call, so its
                                    boundaries read the clock alone from then on */
#define RP_STATE_OFF 0x2u /* set by roofprof: the region is no longer probed (the probe budget) */
struct rp_region_state {
  uint32_t flags;       /* RP_STATE_*, __atomic */
  uint32_t timed_calls; /* its first calls, timed for the decision (RP_STATE_SAMPLE at most) */
  int64_t timed_ns;     /* their time, boundaries included */
};
#define RP_STATES_BYTES ((uint64_t)RP_STATE_SLOTS * sizeof(struct rp_region_state))
/* The state of agent region word `region` (an RP_PATCH_REGION_FLAG id is a patch's), or NULL. */
static inline struct rp_region_state *rp_region_state_of(struct rp_region_state *states, uint32_t region) {
  uint64_t i = (region & 0x80000000u) ? RP_STATE_HOOKS + (uint64_t)(region & 0x7fffffffu) : region;
  if (!states || (region & 0x80000000u ? i >= RP_STATE_SLOTS : i >= RP_STATE_HOOKS)) return 0;
  return &states[i];
}

/* header.flags */
#define RP_F_EXITED 0x1u        /* the process-exit record is written: nothing follows */
#define RP_F_NO_CONSUMER 0x2u   /* the ring filled up and the consumer was gone: agent stopped */
#define RP_F_TABLE_FULL 0x4u    /* table lines were dropped */

struct rp_file_header {
  char magic[8];
  uint32_t version;
  uint32_t record_bytes; /* RP_RECORD_BYTES(n_events + n_times, scope, callers): the distance between slots */
  uint64_t table_offset, table_bytes;
  uint64_t ring_offset, capacity; /* capacity: ring slots, a power of two */
  int32_t pid, ppid;
  uint32_t scope; /* enum rp_scope */
  uint32_t n_events;
  int64_t start_ns;
  uint32_t callers; /* 1: RP_ENTER records carry the return address (see rp_record) */
  uint32_t n_times; /* 2 x the timed groups: values after the events in each snapshot */
  uint64_t pad0;
  /* Shared counters, accessed with __atomic builtins. */
  uint64_t head __attribute__((aligned(64))); /* next position producers reserve */
  uint64_t tail __attribute__((aligned(64))); /* next position the consumer reads */
  uint64_t table_len;        /* bytes of the table published */
  uint64_t flags;            /* RP_F_* */
  uint64_t lost;             /* records not written (no consumer) */
  uint64_t shadow_overflow;  /* region entries not recorded: shadow stack full */
  uint64_t reentered;        /* region entries not recorded: agent re-entered by a signal handler */
  int32_t consumer_pid;      /* who drains the ring; 0 = nobody (the ring stops when full) */
  uint64_t evictions;        /* cache evictions before region entries (--cache-state cold) */
  uint64_t states_offset;    /* RP_STATE_SLOTS struct rp_region_state */
  /* Counters only where cheap (docs/preload.md, "What a boundary costs"): a region whose mean
   * call of its first RP_STATE_SAMPLE is shorter than cheap_factor times counter_call_ns (what
   * the counters add to a call, from the calibration) is clock-only; 0: counters on every call. */
  uint32_t cheap_factor;
  uint32_t pad2;
  int64_t counter_call_ns;
};

/* The reader's doorbell: one file per record directory, DIR/RP_DOORBELL_NAME, created by roofprof
 * before the program starts and mapped MAP_SHARED by every agent of the run (a fork child keeps
 * its parent's mapping; an exec'd image maps it again). roofprof does not poll the rings: it
 * sleeps on `seq` (a futex word: a shared futex, keyed by the file) after setting `waiting`, and
 * wakes on a long timeout, on its own signals (SIGCHLD), or when an agent rings:
 *   - a record is published past the mark (RP_DOORBELL_MARK records pending: 64 KiB of them, at
 *     most half the ring, so that the reader reads them while they are still in a cache),
 *   - a thread waits for a slot (the ring is full),
 *   - a thread or the process exits.
 * An agent rings only when `waiting` is set (it loads the flag after a full fence, the reader sets
 * it and then looks at every ring's head again after a full fence: either the reader sees the
 * record or the agent sees the flag); ringing takes the flag, adds 1 to `rings` and `seq`, and
 * calls FUTEX_WAKE: one system call per sleep of the reader at most, never one per record. */
#define RP_DOORBELL_NAME "doorbell"
#define RP_DOORBELL_BYTES 4096u
#define RP_DOORBELL_MARK_BYTES 65536u
/* pending records that wake the reader: 64 KiB of records, at most half the ring, at least 1 */
#define RP_DOORBELL_MARK(capacity, record_bytes)                                                   \
  ((capacity) / 2u < RP_DOORBELL_MARK_BYTES / (record_bytes) ? ((capacity) / 2u ? (capacity) / 2u : 1u) \
                                                             : RP_DOORBELL_MARK_BYTES / (record_bytes))

struct rp_doorbell {
  uint32_t seq;     /* futex word: changes at every ring (and when roofprof's own signals wake it) */
  uint32_t waiting; /* 1: the reader sleeps (or is about to) on seq */
  uint32_t rings;   /* times an agent rang */
  uint32_t pad;
};

#endif
