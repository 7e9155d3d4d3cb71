/* roofprof emulation tool: state and functions shared by its files.
 *   rp_main.c        counters and threads, the helpers generated code calls, options, setup
 *   rp_out.c         the event file
 *   rp_probes.c      probe addresses, resolved per loaded object
 *   rp_agent.c       boundaries reported by the in-process agent (client requests)
 *   rp_instrument.c  decoding, flop classes, instrumentation
 *   rp_cache.c       the cache hierarchy simulator
 *   rp_annot.c       counts per instruction (--annotate) */
#ifndef RP_TOOL_H
#define RP_TOOL_H

#include "pub_tool_basics.h"
#include "emul/events_format.h"
#include "probes/site_role.h"
#include "pub_tool_tooliface.h"

#include "rp_cache.h"

/* Counters, in output order. */
enum {
   C_INSTR,
   C_SP_S, C_SP_128, C_SP_256, C_SP_512,
   C_DP_S, C_DP_128, C_DP_256, C_DP_512,
   C_X87,
   C_RD, C_WR,
   C_CACHE, /* first cache-simulation counter */
   C_MAX = C_CACHE + 2 * RP_CACHE_MAX_LEVELS
};

extern Int rp_n_counters;
const HChar* rp_counter_name(Int i);

/* Counts of the running thread since it was last scheduled; inline IR adds to these. */
extern ULong rp_live[C_MAX];
/* Counts folded out of rp_live at thread switches: the process total is rp_proc_acc + rp_live. */
extern ULong rp_proc_acc[C_MAX];
extern ULong rp_proc_last[C_MAX]; /* process values at the previous output line */

typedef struct {
   Bool used;
   Int lwp;
   ULong acc[C_MAX];  /* this thread's counts, excluding rp_live while it runs */
   ULong last[C_MAX]; /* this thread's values at its previous output line */
   /* Entry sps of probed functions entered and not yet left, outermost first. */
   Addr* pend;
   Int npend, cap;
} Thread;

extern Thread* rp_threads; /* indexed by ThreadId */
extern ThreadId rp_cur_tid;
/* Innermost pending entry sp of the running thread, ~0 when none: inline IR compares the
   sp after a ret or indirect jump against it and calls rp_departure when above. */
extern Addr rp_cur_innermost;
extern Int rp_n_threads_ever;

/* Helpers called by instrumented code. */
void rp_probe_hit(UWord slot, Addr sp);
void rp_departure(UWord why, Addr sp);
/* --cold-at-entry: empties the simulated caches (an outermost region entry). */
void rp_cold_entry(void);

/* rp_out.c */
extern const HChar* rp_clo_out_dir;
void rp_out_open(Int parent); /* DIR/<pid>.<seq>.events and its header */
void rp_out_drop(void);       /* forget the buffer and file (a forked child's copies) */
void rp_out_close(void);
void rp_out_flush(void);
void rp_out_event(enum rp_event e); /* "<letter> " that begins an event line */
void rp_out_str(const HChar* s);
void rp_out_char(HChar c);
void rp_out_u64(ULong v);
void rp_out_hex(ULong v);
void rp_out_thread_counts(ThreadId tid);
void rp_out_process_counts(Bool allow_same);
void rp_out_event_tail(ThreadId tid, Addr sp);

/* rp_probes.c */
typedef struct {
   Int kind; /* enum rp_site_role (probes/site_role.h) */
   Addr link; /* link-time address in the module */
   HChar* path;
} Probe;
typedef struct { /* the probes at one run-time address */
   Int n, cap;
   Int* idx;
} Slot;
extern const HChar* rp_clo_probes;
extern Probe* rp_probes;
void rp_load_probes(void);
void rp_resolve_probes_for(Addr a);
Int rp_slot_at(Addr a); /* -1: no probe there */
const Slot* rp_slot(Int slot);

/* rp_agent.c: boundaries from the in-process agent (client requests) */
Bool rp_agent_request(ThreadId tid, UWord* args, UWord* ret);
Bool rp_in_agent(Addr a); /* the agent's code: not counted */
void rp_agent_fork_child(void);

/* rp_annot.c: counts per instruction (--annotate=yes) */
typedef struct AnnotCell {
   Addr addr;
   UInt len;
   Bool partial;        /* some of its costs depend on a guard: not in `cost` */
   ULong execs;         /* inline IR adds 1 at each execution */
   ULong cost[C_CACHE]; /* per execution */
   ULong traffic[2 * RP_CACHE_MAX_LEVELS]; /* simulated, in all: the cache counters its accesses moved */
   struct AnnotCell* next;
} AnnotCell;
extern Bool rp_clo_annotate;
AnnotCell* rp_annot_cell(Addr addr, UInt len);
void rp_annot_write(void); /* DIR/<pid>.annot */
void rp_annot_fork_child(void);
/* The simulator's helpers with the cell of the accessing instruction (--annotate). */
VG_REGPARM(3) void rp_annot_load(Addr a, UWord size, AnnotCell* c);
VG_REGPARM(3) void rp_annot_store(Addr a, UWord size, AnnotCell* c);
VG_REGPARM(3) void rp_annot_store_nt(Addr a, UWord size, AnnotCell* c);

/* rp_instrument.c */
extern Bool rp_clo_cache_sim;
extern Bool rp_clo_instrument;
extern Bool rp_clo_cache_inline;
IRSB* rp_instrument(VgCallbackClosure* closure, IRSB* sbIn, const VexGuestLayout* layout,
                    const VexGuestExtents* vge, const VexArchInfo* archinfo_host,
                    IRType gWordTy, IRType hWordTy);

#endif
