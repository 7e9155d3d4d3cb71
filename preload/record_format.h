/* Binary layout of an agent record file: one file per process, written by the C agent
 * (preload/agent/) through a MAP_SHARED mapping and read by the C++ side
 * (preload/record_file.hpp) while the program runs and after it ends. Shared fields are
 * plain integers accessed with the __atomic builtins on both sides.
 *
 *   [header, 4 KiB] [table: text lines, RP_TABLE_BYTES] [ring: capacity * record_bytes]
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
 *   C <calls> <ns>                   the agent's calibration at start: <calls> calls of an empty
 *                                    function through a patched entry took <ns> in all (their
 *                                    records carry region RP_CALIBRATION_REGION, patch_format.h)
 *   W <text>                         something the agent could not do
 */
#ifndef ROOFPROF_PRELOAD_RECORD_FORMAT_H
#define ROOFPROF_PRELOAD_RECORD_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "regions/close_reason.h" /* enum rp_reason: why a STACK_AT / exit record closes instances */

#define RP_FILE_MAGIC "RFAGENT1"
#define RP_FILE_VERSION 6u
#define RP_HEADER_BYTES 4096u
#define RP_TABLE_BYTES (1u << 20)
#define RP_MAX_EVENTS 8
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
  /* cumulative, in the order of ROOFPROF_AGENT_EVENTS: the thread's own; then, in a file of
   * scope=process, the whole process's (every thread, exited ones included); then, in a file
   * whose header has `callers` set (run --group-by caller), the call's return address of an
   * RP_ENTER record (read from `sp` before the exit stub replaces it), at
   * counts[RP_RECORD_VALUES(n_events, scope)] */
  uint64_t counts[2 * RP_MAX_EVENTS + 1];
};
/* A slot holds the counts of the file's n_events only (twice in scope=process, and the return
 * address with `callers`): slots are RP_RECORD_BYTES(n_events, scope, callers) apart (40 bytes
 * with no event, instead of 176),
 * so that the ring a program fills and roofprof drains takes the cache and page-cache room its
 * records need. */
enum rp_scope { RP_SCOPE_PROCESS = 0, RP_SCOPE_THREAD = 1 };
#define RP_RECORD_VALUES(n_events, scope) ((n_events) * ((scope) == RP_SCOPE_PROCESS ? 2u : 1u))
#define RP_RECORD_BYTES(n_events, scope, callers) \
  (offsetof(struct rp_record, counts) + sizeof(uint64_t) * (RP_RECORD_VALUES(n_events, scope) + ((callers) ? 1u : 0u)))

/* header.flags */
#define RP_F_EXITED 0x1u        /* the process-exit record is written: nothing follows */
#define RP_F_NO_CONSUMER 0x2u   /* the ring filled up and the consumer was gone: agent stopped */
#define RP_F_TABLE_FULL 0x4u    /* table lines were dropped */

struct rp_file_header {
  char magic[8];
  uint32_t version;
  uint32_t record_bytes; /* RP_RECORD_BYTES(n_events, callers): the distance between slots */
  uint64_t table_offset, table_bytes;
  uint64_t ring_offset, capacity; /* capacity: ring slots, a power of two */
  int32_t pid, ppid;
  uint32_t scope; /* enum rp_scope */
  uint32_t n_events;
  int64_t start_ns;
  uint32_t callers; /* 1: RP_ENTER records carry the return address (counts[n_events]) */
  uint32_t pad1;
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
};

#endif
