/* roofprof emulation tool for Valgrind 3.24 (amd64-linux; builds against 3.19 too).
 *
 * Counts, per guest thread and for the process: instructions executed, floating-point
 * operations by class with the semantics of Intel's FP_ARITH_INST_RETIRED (an FMA lane is
 * 2 flops; div and sqrt 1 per lane; see docs/emulation.md for every other choice), bytes
 * read and written by instructions, and with --cache-sim=yes the traffic at each interface
 * of a simulated cache hierarchy (rp_cache.c).
 *
 * It knows nothing about regions. It reports boundary facts to a plain text file that the
 * C++ side (emul/events.cpp) feeds to roofprof::regions::Tracker:
 *   - a probe address was reached (function entry, span start or stop), with the guest sp;
 *   - a thread's sp rose above the entry sp of a probed function it entered (a return,
 *     a longjmp, exception unwinding), detected at ret / indirect jumps;
 *   - a thread exited; the process exited or exec'd.
 * Every event carries the thread's and the process's cumulative counters (as deltas from
 * the previous line of the same thread / of the process). valgrind runs one thread at a
 * time, so both are exact.
 *
 * Costs are computed once per instruction at instrumentation time and added to the
 * counters by inline IR before each exit of a superblock; only the probe, departure and
 * cache-simulation calls are helper calls.
 *
 * Sections: counters and threads (here), output (rp_out.c), probes (rp_probes.c),
 * instrumentation (rp_instrument.c), runtime helpers and options (here).
 */
#include "pub_tool_basics.h"
#include "pub_tool_aspacemgr.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"

#include "rp_tool.h"

/*------------------------------------------------------------*/
/*--- Counters and threads                                 ---*/
/*------------------------------------------------------------*/

static const HChar* base_names[C_CACHE] = {
   "instructions",
   "flops_sp_scalar", "flops_sp_128", "flops_sp_256", "flops_sp_512",
   "flops_dp_scalar", "flops_dp_128", "flops_dp_256", "flops_dp_512",
   "flops_x87",
   "bytes_read_L1", "bytes_written_L1",
};
static HChar cache_names[2 * RP_CACHE_MAX_LEVELS][24];
Int rp_n_counters = C_CACHE;

const HChar* rp_counter_name(Int i) { return i < C_CACHE ? base_names[i] : cache_names[i - C_CACHE]; }

ULong rp_live[C_MAX];
ULong rp_proc_acc[C_MAX];
ULong rp_proc_last[C_MAX];

Thread* rp_threads;
ThreadId rp_cur_tid = VG_INVALID_THREADID;
Addr rp_cur_innermost = ~(Addr)0;
Int rp_n_threads_ever;

static void fold_live(void)
{
   if (rp_cur_tid == VG_INVALID_THREADID) return;
   Thread* t = &rp_threads[rp_cur_tid];
   for (Int i = 0; i < rp_n_counters; i++) {
      t->acc[i] += rp_live[i];
      rp_proc_acc[i] += rp_live[i];
      rp_live[i] = 0;
   }
}

/* The thread's record, created on first use (on the thread itself, so gettid is its lwp). */
static Thread* thread_get(ThreadId tid)
{
   Thread* t = &rp_threads[tid];
   if (!t->used) {
      Addr* pend = t->pend;
      Int cap = t->cap;
      VG_(memset)(t, 0, sizeof *t);
      t->pend = pend;
      t->cap = cap;
      t->used = True;
      t->lwp = VG_(gettid)();
      rp_n_threads_ever++;
   }
   return t;
}

static void update_innermost(const Thread* t)
{
   rp_cur_innermost = t->npend ? t->pend[t->npend - 1] : ~(Addr)0;
}

/* Drops pending entries whose frames are gone: entry sp below `sp`. */
static void pop_below(Thread* t, Addr sp)
{
   while (t->npend && t->pend[t->npend - 1] < sp) t->npend--;
}

static void push_entry(Thread* t, Addr sp)
{
   if (t->npend == t->cap) {
      t->cap = t->cap ? 2 * t->cap : 16;
      t->pend = VG_(realloc)("rp.pend", t->pend, t->cap * sizeof(Addr));
   }
   t->pend[t->npend++] = sp;
}

/*------------------------------------------------------------*/
/*--- Runtime helpers                                      ---*/
/*------------------------------------------------------------*/

static Bool clo_cold_at_entry = False;

void rp_cold_entry(void)
{
   if (clo_cold_at_entry && rp_clo_cache_sim) rp_cache_flush();
}

/* A probe address was reached: "P <probe>[,<probe>...] <tid> <sp> <counts>". */
void rp_probe_hit(UWord slot, Addr sp)
{
   Thread* t = &rp_threads[rp_cur_tid];
   const Slot* s = rp_slot((Int)slot);
   Bool entry = False;
   if (clo_cold_at_entry && rp_clo_cache_sim) {
      /* The cold scenario: the simulated caches are emptied at the entry of every function
         region that no probed function of this thread encloses, before the entry's counts
         are taken. The flush itself adds no traffic (rp_cache_flush). */
      Bool any_entry = False;
      for (Int i = 0; i < s->n; i++) any_entry |= rp_probes[s->idx[i]].kind == RP_SITE_ENTRY;
      pop_below(t, sp);
      if (any_entry && t->npend == 0) rp_cache_flush();
   }
   rp_out_event(RP_EV_PROBE);
   for (Int i = 0; i < s->n; i++) {
      if (i) rp_out_char(',');
      rp_out_u64((ULong)s->idx[i]);
      entry |= rp_probes[s->idx[i]].kind == RP_SITE_ENTRY;
   }
   rp_out_char(' ');
   rp_out_event_tail(rp_cur_tid, sp);
   pop_below(t, sp);
   if (entry) push_entry(t, sp);
   update_innermost(t);
}

/* sp rose above a pending entry: "R <why> <tid> <sp> <counts>". */
void rp_departure(UWord why /* enum rp_departure */, Addr sp)
{
   Thread* t = &rp_threads[rp_cur_tid];
   pop_below(t, sp);
   update_innermost(t);
   rp_out_event(RP_EV_DEPARTURE);
   rp_out_char((HChar)why);
   rp_out_char(' ');
   rp_out_event_tail(rp_cur_tid, sp);
}

static UInt clo_progress_ms = 1000;
static UInt last_tick_ms;

static void start_client_code(ThreadId tid, ULong blocks)
{
   (void)blocks;
   if (tid != rp_cur_tid) {
      fold_live();
      rp_cur_tid = tid;
      update_innermost(thread_get(tid));
   }
   if (clo_progress_ms) {
      UInt now = VG_(read_millisecond_timer)();
      if (now - last_tick_ms >= clo_progress_ms) {
         last_tick_ms = now;
         rp_out_event(RP_EV_PROGRESS);
         rp_out_u64(rp_proc_acc[C_INSTR] + rp_live[C_INSTR]);
         rp_out_char(' ');
         rp_out_u64(now);
         rp_out_char('\n');
         rp_out_flush();
      }
   }
}

static void thread_created(ThreadId parent, ThreadId child)
{
   (void)parent;
   rp_threads[child].used = False; /* set up on its first scheduling, on its own lwp */
}

static void thread_exited(ThreadId tid)
{
   Thread* t = &rp_threads[tid];
   if (!t->used) return;
   if (tid == rp_cur_tid) fold_live();
   rp_out_event(RP_EV_THREAD_EXIT);
   rp_out_event_tail(tid, 0);
   t->used = False;
   t->npend = 0;
   if (tid == rp_cur_tid) update_innermost(t);
}

/* --clean-exec-env=yes (roofprof's run without --follow-fork, when valgrind does not trace
   exec'd children): the image an execve starts runs outside valgrind, and must not inherit
   what valgrind put in the environment: VALGRIND_LIB, and an LD_PRELOAD of valgrind's own
   preloads only (valgrind's core would leave it empty). Removed from the guest's envp array
   before the core's execve wrapper copies it. */
static Bool clo_clean_exec_env = False;

static Bool is_prefix(const HChar* p, const HChar* s) { return VG_(strncmp)(s, p, VG_(strlen)(p)) == 0; }

/* Every colon-separated entry of an LD_PRELOAD value is one of valgrind's vgpreload_*.so. */
static Bool only_valgrind_preloads(const HChar* v)
{
   while (*v) {
      const HChar* end = VG_(strchr)(v, ':');
      SizeT n = end ? (SizeT)(end - v) : VG_(strlen)(v);
      Bool vg = False;
      for (SizeT i = 0; i + 10 <= n && !vg; i++) vg = VG_(strncmp)(v + i, "/vgpreload", 10) == 0;
      if (n > 0 && !vg) return False;
      v += n;
      if (*v == ':') v++;
   }
   return True;
}

static Bool client_can(Addr a, SizeT len, UInt prot) { return VG_(am_is_valid_for_client)(a, len, prot); }

static void clean_exec_env(Addr envp)
{
   /* A bad pointer is the kernel's to refuse (EFAULT): left alone. */
   if (!envp || !client_can(envp, sizeof(HChar*), VKI_PROT_READ | VKI_PROT_WRITE)) return;
   HChar** env = (HChar**)envp;
   UInt n = 0;
   for (; client_can((Addr)&env[n], sizeof(HChar*), VKI_PROT_READ | VKI_PROT_WRITE); n++) {
      if (!env[n]) break;
      if (!client_can((Addr)env[n], 1, VKI_PROT_READ)) return;
   }
   if (!client_can((Addr)&env[n], sizeof(HChar*), VKI_PROT_READ) || env[n]) return;
   UInt out = 0;
   for (UInt in = 0; env[in]; in++) {
      const HChar* e = env[in];
      if (is_prefix("VALGRIND_LIB=", e)) continue;
      if (is_prefix("LD_PRELOAD=", e) && only_valgrind_preloads(e + 11)) continue;
      env[out++] = env[in];
   }
   env[out] = NULL;
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs)
{
   (void)nargs;
   if (clo_clean_exec_env && sysno == __NR_execve) clean_exec_env((Addr)args[2]);
   if (clo_clean_exec_env && sysno == __NR_execveat) clean_exec_env((Addr)args[3]);
   if (sysno == __NR_execve || sysno == __NR_execveat) {
      /* If it succeeds this image ends here and no fini is called. */
      rp_out_event(RP_EV_EXEC);
      rp_out_event_tail(tid, 0);
      rp_out_flush();
   }
}

static void post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs, SysRes res)
{
   (void)tid; (void)args; (void)nargs; (void)res;
   if (sysno == __NR_execve || sysno == __NR_execveat) { /* it failed */
      rp_out_char((HChar)RP_EV_EXEC_FAILED);
      rp_out_char('\n');
   }
}

static void fork_child(ThreadId tid)
{
   /* The buffer and file belong to the parent. Start a file of our own whose first
      values are cumulative (deltas from zero). */
   rp_out_drop();
   rp_agent_fork_child();
   rp_annot_fork_child();
   for (UInt i = 0; i < VG_N_THREADS; i++)
      if (i != tid) rp_threads[i].used = False;
   VG_(memset)(rp_threads[tid].last, 0, sizeof rp_threads[tid].last);
   VG_(memset)(rp_proc_last, 0, sizeof rp_proc_last);
   rp_out_open(VG_(getppid)());
}

/*------------------------------------------------------------*/
/*--- Options and setup                                    ---*/
/*------------------------------------------------------------*/

static RpCacheGeom clo_levels[RP_CACHE_MAX_LEVELS];
static Int clo_n_levels;
static Bool clo_victim_last; /* --cache-last=victim: non-inclusive last level (rp_cache.h) */

static Bool parse_level(const HChar* s)
{
   if (clo_n_levels == RP_CACHE_MAX_LEVELS) return False;
   HChar* end;
   RpCacheGeom g;
   g.size = VG_(strtoull10)(s, &end);
   if (*end != ',') return False;
   g.assoc = VG_(strtoull10)(end + 1, &end);
   if (*end != ',') return False;
   g.line = VG_(strtoull10)(end + 1, &end);
   if (*end) return False;
   clo_levels[clo_n_levels++] = g;
   return True;
}

static Bool process_option(const HChar* arg)
{
   const HChar* s;
   if VG_STR_CLO (arg, RP_OPT_PROBES, rp_clo_probes) {}
   else if VG_STR_CLO (arg, RP_OPT_OUT_DIR, rp_clo_out_dir) {}
   else if VG_BOOL_CLO (arg, RP_OPT_CACHE_SIM, rp_clo_cache_sim) {}
   else if VG_BOOL_CLO (arg, RP_OPT_INSTRUMENT, rp_clo_instrument) {}
   else if VG_BOOL_CLO (arg, RP_OPT_CACHE_INLINE, rp_clo_cache_inline) {}
   else if VG_BOOL_CLO (arg, RP_OPT_ANNOTATE, rp_clo_annotate) {}
   else if VG_INT_CLO (arg, RP_OPT_PROGRESS_INTERVAL, clo_progress_ms) {}
   else if VG_BOOL_CLO (arg, RP_OPT_COLD_AT_ENTRY, clo_cold_at_entry) {}
   else if VG_BOOL_CLO (arg, RP_OPT_CLEAN_EXEC_ENV, clo_clean_exec_env) {}
   else if VG_STR_CLO (arg, RP_OPT_CACHE_LEVEL, s) {
      if (!parse_level(s)) VG_(fmsg_bad_option)(arg, "expected SIZE,WAYS,LINE in bytes (at most 4 levels)\n");
   }
   else if VG_STR_CLO (arg, RP_OPT_CACHE_LAST, s) {
      if (VG_(strcmp)(s, "victim") == 0) clo_victim_last = True;
      else if (VG_(strcmp)(s, "inclusive") == 0) clo_victim_last = False;
      else VG_(fmsg_bad_option)(arg, "expected inclusive or victim\n");
   }
   else return False;
   return True;
}

static void print_usage(void)
{
   VG_(printf)(
      "    --probes=FILE                probe addresses (written by roofprof)\n"
      "    --out-dir=DIR             write events to DIR/<pid>.<n>.events\n"
      "    --cache-sim=no|yes        simulate the cache hierarchy [no]\n"
      "    --cache-level=S,W,L       one level (size, ways, line bytes), L1 first\n"
      "    --cache-last=inclusive|victim  the last level: inclusive, or non-inclusive of victims [inclusive]\n"
      "    --progress-interval=MS    progress lines every MS ms, 0 = none [1000]\n"
      "    --cold-at-entry=no|yes    empty the simulated caches at each outermost region entry [no]\n"
      "    --annotate=no|yes         counts per instruction in DIR/<pid>.annot [no]\n");
}

static void print_debug_usage(void)
{
   VG_(printf)("    --instrument=no|yes       add no counting code: the tool's baseline cost [yes]\n"
               "    --cache-inline=no|yes     test the simulator's fast path inline before calling it [yes]\n");
}

static void post_clo_init(void)
{
   if (rp_clo_cache_sim) {
      const HChar* err = clo_n_levels ? rp_cache_check(clo_levels, clo_n_levels) : "no --cache-level given";
      if (!err && clo_victim_last && clo_n_levels < 2) err = "a non-inclusive last level needs two levels or more";
      if (err) {
         VG_(fmsg)("roofprof: bad cache geometry: %s\n", err);
         VG_(exit)(2);
      }
      for (Int j = 1; j <= clo_n_levels; j++) {
         if (j < clo_n_levels) {
            VG_(sprintf)(cache_names[2 * (j - 1)], "bytes_read_L%d", j + 1);
            VG_(sprintf)(cache_names[2 * (j - 1) + 1], "bytes_written_L%d", j + 1);
         } else {
            VG_(sprintf)(cache_names[2 * (j - 1)], "bytes_read_DRAM");
            VG_(sprintf)(cache_names[2 * (j - 1) + 1], "bytes_written_DRAM");
         }
      }
      rp_n_counters = C_CACHE + 2 * clo_n_levels;
      rp_cache_init(clo_levels, clo_n_levels, clo_victim_last, &rp_live[C_CACHE]);
   }
   rp_threads = VG_(calloc)("rp.threads", VG_N_THREADS, sizeof(Thread));
   rp_load_probes();
   rp_out_open(0);
   last_tick_ms = VG_(read_millisecond_timer)();
}

static void fini(Int exitcode)
{
   fold_live();
   for (UInt i = 0; i < VG_N_THREADS; i++) {
      if (!rp_threads[i].used) continue;
      rp_out_event(RP_EV_FINAL);
      rp_out_u64((ULong)rp_threads[i].lwp);
      rp_out_thread_counts(i);
      rp_out_char('\n');
   }
   rp_out_event(RP_EV_END);
   rp_out_u64((ULong)(UInt)exitcode);
   rp_out_process_counts(False);
   rp_out_char('\n');
   rp_out_close();
   rp_annot_write();
}

static void pre_clo_init(void)
{
   VG_(details_name)("roofprof");
   VG_(details_version)("0.1");
   VG_(details_description)("exact flops, bytes and instructions for roofprof");
   VG_(details_copyright_author)("the roofprof authors");
   VG_(details_bug_reports_to)("the roofprof issue tracker");
   VG_(details_avg_translation_sizeB)(400);
   VG_(basic_tool_funcs)(post_clo_init, rp_instrument, fini);
   VG_(needs_command_line_options)(process_option, print_usage, print_debug_usage);
   VG_(needs_syscall_wrapper)(pre_syscall, post_syscall);
   VG_(needs_client_requests)(rp_agent_request);
   VG_(track_start_client_code)(start_client_code);
   VG_(track_pre_thread_ll_create)(thread_created);
   VG_(track_pre_thread_ll_exit)(thread_exited);
   VG_(atfork)(NULL, NULL, fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
