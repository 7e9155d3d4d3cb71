/* roofprof emulation tool for Valgrind 3.19 (amd64-linux).
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
 * Sections: counters and threads / output / probes / instruction decoding /
 * floating-point classification / instrumentation / runtime helpers / options and setup.
 */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_machine.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"
#include "pub_tool_vkiscnums.h"
#include "libvex_guest_offsets.h"

#include "rp_cache.h"

/*------------------------------------------------------------*/
/*--- Counters and threads                                 ---*/
/*------------------------------------------------------------*/

enum {
   C_INSTR,
   C_SP_S, C_SP_128, C_SP_256, C_SP_512,
   C_DP_S, C_DP_128, C_DP_256, C_DP_512,
   C_X87,
   C_RD, C_WR,
   C_CACHE, /* first cache-simulation counter */
   C_MAX = C_CACHE + 2 * RP_CACHE_MAX_LEVELS
};

static const HChar* base_names[C_CACHE] = {
   "instructions",
   "flops_sp_scalar", "flops_sp_128", "flops_sp_256", "flops_sp_512",
   "flops_dp_scalar", "flops_dp_128", "flops_dp_256", "flops_dp_512",
   "flops_x87",
   "bytes_read_L1", "bytes_written_L1",
};
static HChar cache_names[2 * RP_CACHE_MAX_LEVELS][24];
static Int n_counters = C_CACHE;

/* Counts of the running thread since it was last scheduled; inline IR adds to these. */
static ULong live[C_MAX];
/* Counts folded out of `live` at thread switches: the process total is proc_acc + live. */
static ULong proc_acc[C_MAX];
static ULong proc_last[C_MAX]; /* process values at the previous output line */

typedef struct {
   Bool used;
   Int lwp;
   ULong acc[C_MAX];  /* this thread's counts, excluding `live` while it runs */
   ULong last[C_MAX]; /* this thread's values at its previous output line */
   /* Entry sps of probed functions entered and not yet left, outermost first. */
   Addr* pend;
   Int npend, cap;
} Thread;

static Thread* threads; /* indexed by ThreadId */
static ThreadId cur_tid = VG_INVALID_THREADID;
/* Innermost pending entry sp of the running thread, ~0 when none: inline IR compares the
   sp after a ret or indirect jump against it and calls the departure helper when above. */
static Addr cur_innermost = ~(Addr)0;
static Int n_threads_ever;

static void fold_live(void)
{
   if (cur_tid == VG_INVALID_THREADID) return;
   Thread* t = &threads[cur_tid];
   for (Int i = 0; i < n_counters; i++) {
      t->acc[i] += live[i];
      proc_acc[i] += live[i];
      live[i] = 0;
   }
}

/* The thread's record, created on first use (on the thread itself, so gettid is its lwp). */
static Thread* thread_get(ThreadId tid)
{
   Thread* t = &threads[tid];
   if (!t->used) {
      Addr* pend = t->pend;
      Int cap = t->cap;
      VG_(memset)(t, 0, sizeof *t);
      t->pend = pend;
      t->cap = cap;
      t->used = True;
      t->lwp = VG_(gettid)();
      n_threads_ever++;
   }
   return t;
}

static void update_innermost(const Thread* t)
{
   cur_innermost = t->npend ? t->pend[t->npend - 1] : ~(Addr)0;
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
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

static const HChar* clo_out_dir = NULL;
static Int out_fd = -1;
static HChar obuf[1 << 16];
static Int olen;

static void out_flush(void)
{
   Int off = 0;
   while (out_fd >= 0 && off < olen) {
      Int n = VG_(write)(out_fd, obuf + off, olen - off);
      if (n <= 0) break;
      off += n;
   }
   olen = 0;
}

static void out_room(Int n)
{
   if (olen + n > (Int)sizeof obuf) out_flush();
}

static void out_str(const HChar* s)
{
   Int n = VG_(strlen)(s);
   if (n > (Int)sizeof obuf / 2) n = sizeof obuf / 2;
   out_room(n);
   VG_(memcpy)(obuf + olen, s, n);
   olen += n;
}

static void out_char(HChar c)
{
   out_room(1);
   obuf[olen++] = c;
}

static void out_u64(ULong v)
{
   HChar tmp[24];
   Int n = 0;
   do {
      tmp[n++] = (HChar)('0' + v % 10);
      v /= 10;
   } while (v);
   out_room(n);
   while (n) obuf[olen++] = tmp[--n];
}

static void out_hex(ULong v)
{
   HChar tmp[20];
   Int n = 0;
   do {
      tmp[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
   } while (v);
   out_room(n);
   while (n) obuf[olen++] = tmp[--n];
}

/* " <deltas of the thread>" */
static void out_thread_counts(ThreadId tid)
{
   Thread* t = &threads[tid];
   for (Int i = 0; i < n_counters; i++) {
      ULong v = t->acc[i] + (tid == cur_tid ? live[i] : 0);
      out_char(' ');
      out_u64(v - t->last[i]);
      t->last[i] = v;
   }
}

/* " <deltas of the process>", or " =" while only one thread ever existed. */
static void out_process_counts(Bool allow_same)
{
   Bool same = allow_same && n_threads_ever <= 1;
   if (same) out_str(" =");
   for (Int i = 0; i < n_counters; i++) {
      ULong v = proc_acc[i] + live[i];
      if (!same) {
         out_char(' ');
         out_u64(v - proc_last[i]);
      }
      proc_last[i] = v;
   }
}

/* "<tid> <sp> <thread counts> | <process counts>\n" */
static void out_event_tail(ThreadId tid, Addr sp)
{
   out_u64((ULong)threads[tid].lwp);
   out_char(' ');
   out_hex(sp);
   out_thread_counts(tid);
   out_str(" |");
   out_process_counts(True);
   out_char('\n');
}

static void out_header(Int parent)
{
   out_str("roofprof-emul 1\npid ");
   out_u64((ULong)VG_(getpid)());
   out_str(" parent ");
   out_u64((ULong)parent);
   out_str("\ncounters");
   for (Int i = 0; i < n_counters; i++) {
      out_char(' ');
      out_str(i < C_CACHE ? base_names[i] : cache_names[i - C_CACHE]);
   }
   out_char('\n');
}

/* Opens DIR/<pid>.<seq>.events with the first free seq (an exec'd image keeps the pid). */
static void out_open(Int parent)
{
   if (!clo_out_dir) return;
   HChar* path = VG_(malloc)("rp.out", VG_(strlen)(clo_out_dir) + 64);
   for (Int seq = 0; seq < 1000; seq++) {
      VG_(sprintf)(path, "%s/%d.%d.events", clo_out_dir, VG_(getpid)(), seq);
      SysRes r = VG_(open)(path, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, 0600);
      if (!sr_isError(r)) {
         out_fd = (Int)sr_Res(r);
         break;
      }
      if (sr_Err(r) != VKI_EEXIST) break;
   }
   if (out_fd < 0) VG_(umsg)("roofprof: cannot create an event file in %s\n", clo_out_dir);
   VG_(free)(path);
   olen = 0;
   out_header(parent);
}

/*------------------------------------------------------------*/
/*--- Probes                                               ---*/
/*------------------------------------------------------------*/

enum { PK_ENTRY, PK_SPAN_START, PK_SPAN_STOP };

typedef struct {
   Int kind;
   Addr link; /* link-time address in the module */
   HChar* path;
} Probe;

static const HChar* clo_probes = NULL;
static Probe* probes;
static Int n_probes;

/* Runtime addresses of resolved probes, sorted; each names a slot (a list of probes). */
typedef struct {
   Addr addr;
   Int slot;
} Site;
typedef struct {
   Int n;
   Int idx[8];
} Slot;

static Site* sites;
static Int n_sites, cap_sites;
static Slot* slots;
static Int n_slots, cap_slots;

/* Objects whose probes were resolved (a DebugInfo is identified with its text address). */
typedef struct {
   const DebugInfo* di;
   Addr avma;
} Seen;
static Seen* seen;
static Int n_seen, cap_seen;

static void load_probes(void)
{
   if (!clo_probes) return;
   SysRes r = VG_(open)(clo_probes, VKI_O_RDONLY, 0);
   if (sr_isError(r)) {
      VG_(fmsg)("roofprof: cannot open probe file %s\n", clo_probes);
      VG_(exit)(2);
   }
   Int fd = (Int)sr_Res(r);
   Int cap = 1 << 16, len = 0;
   HChar* buf = VG_(malloc)("rp.probes.file", cap + 1);
   for (;;) {
      if (len == cap) {
         cap *= 2;
         buf = VG_(realloc)("rp.probes.file", buf, cap + 1);
      }
      Int n = VG_(read)(fd, buf + len, cap - len);
      if (n <= 0) break;
      len += n;
   }
   VG_(close)(fd);
   buf[len] = 0;
   /* Lines: "roofprof-probes 1" then "<kind>\t<hex link address>\t<module path>". */
   Int lines = 0;
   for (Int i = 0; i < len; i++) lines += buf[i] == '\n';
   probes = VG_(calloc)("rp.probes", lines + 1, sizeof(Probe));
   HChar* p = buf;
   Bool header = True;
   while (*p) {
      HChar* eol = VG_(strchr)(p, '\n');
      if (eol) *eol = 0;
      if (header) {
         if (!VG_STREQ(p, "roofprof-probes 1")) {
            VG_(fmsg)("roofprof: %s is not a roofprof probe file\n", clo_probes);
            VG_(exit)(2);
         }
         header = False;
      } else if (*p) {
         HChar* t1 = VG_(strchr)(p, '\t');
         HChar* t2 = t1 ? VG_(strchr)(t1 + 1, '\t') : NULL;
         if (!t2) {
            VG_(fmsg)("roofprof: malformed probe line: %s\n", p);
            VG_(exit)(2);
         }
         *t1 = 0;
         Probe* pr = &probes[n_probes++];
         pr->kind = VG_STREQ(p, "entry") ? PK_ENTRY : VG_STREQ(p, "span_start") ? PK_SPAN_START : PK_SPAN_STOP;
         pr->link = (Addr)VG_(strtoull16)(t1 + 1, NULL);
         pr->path = t2 + 1;
      }
      if (!eol) break;
      p = eol + 1;
   }
   /* buf stays allocated: probes point into it. */
}

static Int site_find(Addr a)
{
   Int lo = 0, hi = n_sites - 1;
   while (lo <= hi) {
      Int mid = (lo + hi) / 2;
      if (sites[mid].addr == a) return mid;
      if (sites[mid].addr < a) lo = mid + 1;
      else hi = mid - 1;
   }
   return -1;
}

static void site_add(Addr a, Int probe)
{
   Int i = site_find(a);
   if (i < 0) {
      if (n_slots == cap_slots) {
         cap_slots = cap_slots ? 2 * cap_slots : 16;
         slots = VG_(realloc)("rp.slots", slots, cap_slots * sizeof(Slot));
      }
      slots[n_slots].n = 0;
      if (n_sites == cap_sites) {
         cap_sites = cap_sites ? 2 * cap_sites : 16;
         sites = VG_(realloc)("rp.sites", sites, cap_sites * sizeof(Site));
      }
      Int at = n_sites;
      while (at > 0 && sites[at - 1].addr > a) {
         sites[at] = sites[at - 1];
         at--;
      }
      sites[at].addr = a;
      sites[at].slot = n_slots++;
      n_sites++;
      i = at;
   }
   Slot* s = &slots[sites[i].slot];
   if (s->n < (Int)(sizeof s->idx / sizeof s->idx[0])) s->idx[s->n++] = probe;
}

/* Sites in [lo, hi) belonged to an object that is gone. */
static void sites_drop(Addr lo, Addr hi)
{
   Int k = 0;
   for (Int i = 0; i < n_sites; i++)
      if (sites[i].addr < lo || sites[i].addr >= hi) sites[k++] = sites[i];
   n_sites = k;
}

/* Resolves the probes of the object holding `a`, once per loaded object. */
static void resolve_probes_for(Addr a)
{
   static const DebugInfo* last_di;
   static Addr last_avma;
   if (n_probes == 0) return;
   const DebugInfo* di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), a);
   if (!di) return;
   Addr avma = VG_(DebugInfo_get_text_avma)(di);
   if (di == last_di && avma == last_avma) return;
   last_di = di;
   last_avma = avma;
   for (Int i = 0; i < n_seen; i++)
      if (seen[i].di == di && seen[i].avma == avma) return;
   if (n_seen == cap_seen) {
      cap_seen = cap_seen ? 2 * cap_seen : 16;
      seen = VG_(realloc)("rp.seen", seen, cap_seen * sizeof(Seen));
   }
   seen[n_seen].di = di;
   seen[n_seen].avma = avma;
   n_seen++;
   const HChar* file = VG_(DebugInfo_get_filename)(di);
   PtrdiffT bias = VG_(DebugInfo_get_text_bias)(di);
   sites_drop(avma, avma + VG_(DebugInfo_get_text_size)(di));
   Int matched = 0;
   for (Int i = 0; i < n_probes; i++) {
      if (file && VG_STREQ(probes[i].path, file)) {
         site_add(probes[i].link + bias, i);
         matched++;
      }
   }
   if (matched) {
      out_str("M ");
      out_hex((ULong)bias);
      out_char(' ');
      out_u64((ULong)matched);
      out_char(' ');
      out_str(file);
      out_char('\n');
   }
}

/*------------------------------------------------------------*/
/*--- Instruction decoding                                 ---*/
/*------------------------------------------------------------*/

/* Just enough of x86-64 decoding to recognise the instructions that need a rule the IR
   cannot express: x87, REP string ops, non-temporal stores, ADDSUB, DPP and gathers. */
typedef struct {
   Int map;   /* 0: one-byte, 1: 0F, 2: 0F38, 3: 0F3A */
   Int pp;    /* mandatory prefix: 0 none, 1 66, 2 F3, 3 F2 */
   Bool rep;  /* F2/F3 prefix present */
   Bool vex;
   Bool vex256; /* VEX.L = 1: a 256-bit instruction */
   UChar op;
} Decoded;

static Decoded decode(const UChar* p, UInt len)
{
   Decoded d = {0, 0, False, False, False, 0};
   UInt i = 0;
   Int legacy_pp = 0;
   for (; i < len; i++) {
      UChar b = p[i];
      if (b == 0x66) { if (!legacy_pp) legacy_pp = 1; }
      else if (b == 0xF3) { legacy_pp = 2; d.rep = True; }
      else if (b == 0xF2) { legacy_pp = 3; d.rep = True; }
      else if (b == 0xF0 || b == 0x2E || b == 0x36 || b == 0x3E || b == 0x26 || b == 0x64 ||
               b == 0x65 || b == 0x67) { }
      else break;
   }
   if (i < len && (p[i] & 0xF0) == 0x40) i++; /* REX */
   if (i >= len) return d;
   UChar b = p[i];
   if (b == 0xC5 && i + 2 < len) {
      d.vex = True;
      d.map = 1;
      d.pp = p[i + 1] & 3;
      d.vex256 = (p[i + 1] >> 2) & 1;
      d.op = p[i + 2];
   } else if (b == 0xC4 && i + 3 < len) {
      d.vex = True;
      d.map = p[i + 1] & 0x1F;
      d.pp = p[i + 2] & 3;
      d.vex256 = (p[i + 2] >> 2) & 1;
      d.op = p[i + 3];
   } else if (b == 0x0F && i + 1 < len) {
      d.pp = legacy_pp;
      if (p[i + 1] == 0x38 && i + 2 < len) { d.map = 2; d.op = p[i + 2]; }
      else if (p[i + 1] == 0x3A && i + 2 < len) { d.map = 3; d.op = p[i + 2]; }
      else { d.map = 1; d.op = p[i + 1]; }
   } else {
      d.pp = legacy_pp;
      d.map = 0;
      d.op = b;
   }
   return d;
}

static Bool is_x87(const Decoded* d) { return d->map == 0 && !d->vex && d->op >= 0xD8 && d->op <= 0xDF; }

static Bool is_rep_string(const Decoded* d)
{
   return d->rep && d->map == 0 && !d->vex &&
          ((d->op >= 0xA4 && d->op <= 0xA7) || (d->op >= 0xAA && d->op <= 0xAF));
}

/* MOVNTI, MOVNTPS/PD, MOVNTQ/MOVNTDQ, MASKMOVQ/MASKMOVDQU (and VEX forms). */
static Bool is_nt_store(const Decoded* d)
{
   return d->map == 1 && (d->op == 0xC3 || d->op == 0x2B || d->op == 0xE7 || d->op == 0xF7);
}

static Bool is_addsub(const Decoded* d) { return d->map == 1 && d->op == 0xD0 && (d->pp == 1 || d->pp == 3); }
static Bool is_dpp(const Decoded* d) { return d->map == 3 && (d->op == 0x40 || d->op == 0x41) && d->pp == 1; }
static Bool is_gather(const Decoded* d) { return d->vex && d->map == 2 && d->op >= 0x90 && d->op <= 0x93; }

/*------------------------------------------------------------*/
/*--- Floating-point classification                        ---*/
/*------------------------------------------------------------*/

typedef enum { FK_NONE, FK_SCALAR_IR, FK_LANE0, FK_VECTOR, FK_X87_ONLY } FpKind;

typedef struct {
   FpKind kind;
   Bool dp;
   Int lanes;    /* FK_VECTOR */
   Int per_lane; /* flops per lane: 2 for fused multiply-add */
   Bool mul;     /* a multiply (DPP rule) */
} FpOp;

static FpOp fp_class(IROp op)
{
   FpOp r = {FK_NONE, False, 1, 1, False};
   switch (op) {
      /* Scalar IR ops: scalar instructions, x87, and packed FMA split into lanes by VEX. */
      case Iop_MulF64: r.mul = True; /* fallthrough */
      case Iop_AddF64: case Iop_SubF64: case Iop_DivF64: case Iop_SqrtF64:
         r.kind = FK_SCALAR_IR; r.dp = True; break;
      case Iop_MulF32: r.mul = True; /* fallthrough */
      case Iop_AddF32: case Iop_SubF32: case Iop_DivF32: case Iop_SqrtF32:
         r.kind = FK_SCALAR_IR; break;
      case Iop_MAddF64: case Iop_MSubF64:
         r.kind = FK_SCALAR_IR; r.dp = True; r.per_lane = 2; break;
      case Iop_MAddF32: case Iop_MSubF32:
         r.kind = FK_SCALAR_IR; r.per_lane = 2; break;
      /* x87 transcendentals and friends: one operation each, only in x87 instructions. */
      case Iop_AtanF64: case Iop_Yl2xF64: case Iop_Yl2xp1F64: case Iop_PRemF64:
      case Iop_PRem1F64: case Iop_ScaleF64: case Iop_SinF64: case Iop_CosF64:
      case Iop_TanF64: case Iop_2xm1F64:
         r.kind = FK_X87_ONLY; r.dp = True; break;
      /* Lowest-lane ops: scalar SSE/AVX instructions. */
      case Iop_Mul64F0x2: r.mul = True; /* fallthrough */
      case Iop_Add64F0x2: case Iop_Sub64F0x2: case Iop_Div64F0x2: case Iop_Max64F0x2:
      case Iop_Min64F0x2: case Iop_Sqrt64F0x2:
         r.kind = FK_LANE0; r.dp = True; break;
      case Iop_Mul32F0x4: r.mul = True; /* fallthrough */
      case Iop_Add32F0x4: case Iop_Sub32F0x4: case Iop_Div32F0x4: case Iop_Max32F0x4:
      case Iop_Min32F0x4: case Iop_Sqrt32F0x4: case Iop_RecipEst32F0x4: case Iop_RSqrtEst32F0x4:
         r.kind = FK_LANE0; break;
      /* Packed ops. */
      case Iop_Mul64Fx2: r.mul = True; /* fallthrough */
      case Iop_Add64Fx2: case Iop_Sub64Fx2: case Iop_Div64Fx2: case Iop_Max64Fx2:
      case Iop_Min64Fx2: case Iop_Sqrt64Fx2: case Iop_RecipEst64Fx2: case Iop_RSqrtEst64Fx2:
         r.kind = FK_VECTOR; r.dp = True; r.lanes = 2; break;
      case Iop_Mul64Fx4: r.mul = True; /* fallthrough */
      case Iop_Add64Fx4: case Iop_Sub64Fx4: case Iop_Div64Fx4: case Iop_Max64Fx4:
      case Iop_Min64Fx4: case Iop_Sqrt64Fx4:
         r.kind = FK_VECTOR; r.dp = True; r.lanes = 4; break;
      case Iop_Mul32Fx4: r.mul = True; /* fallthrough */
      case Iop_Add32Fx4: case Iop_Sub32Fx4: case Iop_Div32Fx4: case Iop_Max32Fx4:
      case Iop_Min32Fx4: case Iop_Sqrt32Fx4: case Iop_RecipEst32Fx4: case Iop_RSqrtEst32Fx4:
         r.kind = FK_VECTOR; r.lanes = 4; break;
      case Iop_Mul32Fx8: r.mul = True; /* fallthrough */
      case Iop_Add32Fx8: case Iop_Sub32Fx8: case Iop_Div32Fx8: case Iop_Max32Fx8:
      case Iop_Min32Fx8: case Iop_Sqrt32Fx8: case Iop_RecipEst32Fx8: case Iop_RSqrtEst32Fx8:
         r.kind = FK_VECTOR; r.lanes = 8; break;
      default: break;
   }
   return r;
}

/* Counter for `bits` of packed data of one precision (bits <= 64: scalar). */
static Int class_counter(Bool dp, UInt bits)
{
   Int base = dp ? C_DP_S : C_SP_S;
   UInt elem = dp ? 64 : 32;
   if (bits <= elem) return base;
   if (bits <= 128) return base + 1;
   if (bits <= 256) return base + 2;
   return base + 3;
}

/*------------------------------------------------------------*/
/*--- Instrumentation                                      ---*/
/*------------------------------------------------------------*/

static Bool clo_cache_sim = False;
static Bool clo_instrument = True; /* --instrument=no: count nothing (benchmark baseline) */

/* The guest instruction being instrumented. */
typedef struct {
   Addr addr;
   UInt len;
   Bool x87, rep, nt, addsub, dpp, gather, wide;
   /* FP ops seen so far in it */
   UInt scalar_ops[2], scalar_flops[2]; /* [dp]: scalar IR ops and their flops */
   ULong vec_flops[C_CACHE];            /* lane-0 and packed ops, by counter */
   ULong x87_flops;
   ULong mul_flops[C_CACHE];            /* multiplies, by counter (DPP rule) */
   /* gathers: temps holding a lane address chosen by ITE(mask, address, base) */
   Int n_lane;
   IRTemp lane_tmp[16];
   IRExpr* lane_guard[16];
   /* addresses loaded by plain loads (a locked read-modify-write loads, then CASes) */
   Int n_loaded;
   IRExpr* loaded[4];
} Insn;

typedef struct {
   IRSB* out;
   ULong pend[C_CACHE]; /* static costs not yet added to `live` */
   Insn in;
} Ctx;

static IRExpr* counter_addr(Int i) { return mkIRExpr_HWord((HWord)&live[i]); }

static void emit_add(IRSB* sb, Int i, IRExpr* delta)
{
   IRTemp old = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp sum = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, counter_addr(i))));
   addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old), delta)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, counter_addr(i), IRExpr_RdTmp(sum)));
}

/* live[i] += guard ? v : 0 (guard is an I1 atom) */
static void emit_add_guarded(IRSB* sb, Int i, IRExpr* guard, ULong v)
{
   IRTemp d = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(d, IRExpr_ITE(guard, IRExpr_Const(IRConst_U64(v)),
                                                IRExpr_Const(IRConst_U64(0)))));
   emit_add(sb, i, IRExpr_RdTmp(d));
}

static Bool is_true(const IRExpr* g)
{
   return g == NULL || (g->tag == Iex_Const && g->Iex.Const.con->tag == Ico_U1 && g->Iex.Const.con->Ico.U1);
}

/* Moves the FP tallies of the current instruction into the pending costs. */
static void fold_fp(Ctx* c)
{
   Insn* in = &c->in;
   if (in->wide) {
      /* VEX splits some 256-bit instructions (VHADDPS, VDPPS, ...) into two 128-bit
         halves: the instruction's width is what counts. */
      for (Int k = C_SP_128; k <= C_DP_128; k += C_DP_128 - C_SP_128) {
         in->vec_flops[k + 1] += in->vec_flops[k];
         in->vec_flops[k] = 0;
         in->mul_flops[k + 1] += in->mul_flops[k];
         in->mul_flops[k] = 0;
      }
   }
   if (in->x87) {
      c->pend[C_X87] += in->x87_flops;
   } else if (in->dpp) {
      /* DPP: 2 flops per lane of the multiply (Intel counts the instruction twice). */
      for (Int i = 0; i < C_CACHE; i++) c->pend[i] += 2 * in->mul_flops[i];
   } else {
      for (Int dp = 0; dp < 2; dp++) {
         UInt n = in->scalar_ops[dp];
         if (n == 0) continue;
         /* One scalar op: a scalar instruction. Several: a packed instruction that VEX
            splits into lanes (FMA), classed by the width its lanes cover. */
         UInt bits = n == 1 ? 0 : n * (dp ? 64 : 32);
         c->pend[class_counter(dp, bits)] += in->scalar_flops[dp];
      }
      for (Int i = 0; i < C_CACHE; i++)
         c->pend[i] += in->addsub ? in->vec_flops[i] / 2 : in->vec_flops[i];
   }
   VG_(memset)(in->scalar_ops, 0, sizeof in->scalar_ops);
   VG_(memset)(in->scalar_flops, 0, sizeof in->scalar_flops);
   VG_(memset)(in->vec_flops, 0, sizeof in->vec_flops);
   VG_(memset)(in->mul_flops, 0, sizeof in->mul_flops);
   in->x87_flops = 0;
}

static void flush(Ctx* c)
{
   fold_fp(c);
   for (Int i = 0; i < C_CACHE; i++) {
      if (c->pend[i]) {
         emit_add(c->out, i, IRExpr_Const(IRConst_U64(c->pend[i])));
         c->pend[i] = 0;
      }
   }
}

static void tally_fp(Ctx* c, IROp op)
{
   FpOp f = fp_class(op);
   Insn* in = &c->in;
   if (f.kind == FK_NONE) return;
   ULong flops = (ULong)f.lanes * f.per_lane;
   if (in->x87) {
      in->x87_flops += flops;
      return;
   }
   switch (f.kind) {
      case FK_SCALAR_IR:
         in->scalar_ops[f.dp]++;
         in->scalar_flops[f.dp] += f.per_lane;
         if (f.mul) in->mul_flops[class_counter(f.dp, 0)] += 1;
         break;
      case FK_LANE0:
         in->vec_flops[class_counter(f.dp, 0)] += 1;
         if (f.mul) in->mul_flops[class_counter(f.dp, 0)] += 1;
         break;
      case FK_VECTOR: {
         Int k = class_counter(f.dp, f.lanes * (f.dp ? 64 : 32));
         in->vec_flops[k] += flops;
         if (f.mul) in->mul_flops[k] += flops;
         break;
      }
      default: break; /* x87-only ops outside x87 instructions */
   }
}

static void emit_cache_call(Ctx* c, Bool write, IRExpr* addr, UInt size, IRExpr* guard)
{
   void* fn = !write ? (void*)rp_cache_load : c->in.nt ? (void*)rp_cache_store_nt : (void*)rp_cache_store;
   const HChar* name = !write ? "rp_cache_load" : c->in.nt ? "rp_cache_store_nt" : "rp_cache_store";
   IRDirty* d = unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn),
                                  mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size)));
   if (!is_true(guard)) d->guard = guard;
   addStmtToIRSB(c->out, IRStmt_Dirty(d));
}

/* A memory access of `size` bytes at the atom `addr`, performed when `guard` holds. */
static void access(Ctx* c, Bool write, IRExpr* addr, UInt size, IRExpr* guard)
{
   Int k = write ? C_WR : C_RD;
   if (is_true(guard))
      c->pend[k] += size;
   else
      emit_add_guarded(c->out, k, guard, size);
   if (clo_cache_sim) emit_cache_call(c, write, addr, size, guard);
}

/* In a gather, a lane's load is real only when its mask bit is set; VEX loads from the base
   address otherwise. The lane address comes from ITE(mask, address, base). */
static IRExpr* gather_guard(const Ctx* c, const IRExpr* addr)
{
   if (!c->in.gather || addr->tag != Iex_RdTmp) return NULL;
   for (Int i = 0; i < c->in.n_lane; i++)
      if (c->in.lane_tmp[i] == addr->Iex.RdTmp.tmp) return c->in.lane_guard[i];
   return NULL;
}

static Bool same_atom(const IRExpr* a, const IRExpr* b)
{
   if (a->tag == Iex_RdTmp && b->tag == Iex_RdTmp) return a->Iex.RdTmp.tmp == b->Iex.RdTmp.tmp;
   if (a->tag == Iex_Const && b->tag == Iex_Const) return eqIRConst(a->Iex.Const.con, b->Iex.Const.con);
   return False;
}

static Bool was_loaded(const Insn* in, const IRExpr* addr)
{
   for (Int i = 0; i < in->n_loaded; i++)
      if (same_atom(in->loaded[i], addr)) return True;
   return False;
}

static void probe_hit(UWord slot, Addr sp);
static void departure(UWord why, Addr sp);

static void begin_insn(Ctx* c, const IRStmt* st)
{
   Insn* in = &c->in;
   fold_fp(c);
   in->addr = (Addr)st->Ist.IMark.addr;
   in->len = st->Ist.IMark.len;
   Decoded d = decode((const UChar*)in->addr, in->len);
   in->x87 = is_x87(&d);
   in->rep = is_rep_string(&d);
   in->nt = is_nt_store(&d);
   in->addsub = is_addsub(&d);
   in->dpp = is_dpp(&d);
   in->gather = is_gather(&d);
   in->wide = d.vex256;
   in->n_lane = 0;
   in->n_loaded = 0;
   addStmtToIRSB(c->out, (IRStmt*)st);
   Int s = n_sites ? site_find(in->addr) : -1;
   if (s >= 0) {
      /* Counters must be exact at the boundary: add everything before this instruction. */
      flush(c);
      IRTemp sp = newIRTemp(c->out->tyenv, Ity_I64);
      addStmtToIRSB(c->out, IRStmt_WrTmp(sp, IRExpr_Get(OFFSET_amd64_RSP, Ity_I64)));
      IRDirty* dd = unsafeIRDirty_0_N(0, "rp_probe_hit", VG_(fnptr_to_fnentry)(probe_hit),
                                      mkIRExprVec_2(mkIRExpr_HWord((HWord)sites[s].slot), IRExpr_RdTmp(sp)));
      addStmtToIRSB(c->out, IRStmt_Dirty(dd));
   }
   /* A REP string instruction re-executes itself once per iteration; it counts once,
      when it leaves to the next instruction (see the exits). */
   if (!in->rep) c->pend[C_INSTR]++;
}

static void instrument_wrtmp(Ctx* c, IRStmt* st)
{
   IRExpr* e = st->Ist.WrTmp.data;
   switch (e->tag) {
      case Iex_Load: {
         IRExpr* g = gather_guard(c, e->Iex.Load.addr);
         if (c->in.n_loaded < 4) c->in.loaded[c->in.n_loaded++] = e->Iex.Load.addr;
         access(c, False, e->Iex.Load.addr, sizeofIRType(e->Iex.Load.ty), g);
         break;
      }
      case Iex_ITE:
         if (c->in.gather && c->in.n_lane < 16 && typeOfIRExpr(c->out->tyenv, e) == Ity_I64) {
            c->in.lane_tmp[c->in.n_lane] = st->Ist.WrTmp.tmp;
            c->in.lane_guard[c->in.n_lane] = e->Iex.ITE.cond;
            c->in.n_lane++;
         }
         break;
      case Iex_Unop: tally_fp(c, e->Iex.Unop.op); break;
      case Iex_Binop: tally_fp(c, e->Iex.Binop.op); break;
      case Iex_Triop: tally_fp(c, e->Iex.Triop.details->op); break;
      case Iex_Qop: tally_fp(c, e->Iex.Qop.details->op); break;
      default: break;
   }
   addStmtToIRSB(c->out, st);
}

static void instrument_dirty(Ctx* c, IRStmt* st)
{
   IRDirty* d = st->Ist.Dirty.details;
   if (d->mFx != Ifx_None && d->mSize > 0) {
      if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify) access(c, False, d->mAddr, d->mSize, d->guard);
      if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify) access(c, True, d->mAddr, d->mSize, d->guard);
   }
   addStmtToIRSB(c->out, st);
}

static void instrument_exit(Ctx* c, IRStmt* st)
{
   flush(c);
   const IRConst* dst = st->Ist.Exit.dst;
   if (c->in.rep && dst->tag == Ico_U64 && dst->Ico.U64 == (ULong)(c->in.addr + c->in.len))
      emit_add_guarded(c->out, C_INSTR, st->Ist.Exit.guard, 1);
   addStmtToIRSB(c->out, st);
}

/* After a ret or an indirect jump: if sp rose above the innermost pending entry sp of
   the thread, a probed function was left. Inline compare, helper call only then. */
static void emit_departure_check(Ctx* c, IRSB* in)
{
   Bool ret = in->jumpkind == Ijk_Ret;
   Bool indirect = in->jumpkind == Ijk_Boring && in->next->tag != Iex_Const;
   if (!ret && !indirect) return;
   const HChar* fn = NULL;
   UWord why = ret ? 'r' : 'j';
   if (VG_(get_fnname)(VG_(current_DiEpoch)(), c->in.addr, &fn) && fn) {
      if (VG_(strstr)(fn, "_Unwind_")) why = 'x';
      else if (!ret && VG_(strstr)(fn, "longjmp")) why = 'l';
   }
   IRSB* sb = c->out;
   IRTemp sp = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp inner = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp above = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(sp, IRExpr_Get(OFFSET_amd64_RSP, Ity_I64)));
   addStmtToIRSB(sb, IRStmt_WrTmp(inner, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&cur_innermost))));
   addStmtToIRSB(sb, IRStmt_WrTmp(above, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(inner), IRExpr_RdTmp(sp))));
   IRDirty* d = unsafeIRDirty_0_N(0, "rp_departure", VG_(fnptr_to_fnentry)(departure),
                                  mkIRExprVec_2(mkIRExpr_HWord(why), IRExpr_RdTmp(sp)));
   d->guard = IRExpr_RdTmp(above);
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

static IRSB* rp_instrument(VgCallbackClosure* closure, IRSB* sbIn, const VexGuestLayout* layout,
                           const VexGuestExtents* vge, const VexArchInfo* archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
   (void)closure; (void)layout; (void)archinfo_host;
   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
   if (!clo_instrument) return sbIn;
   resolve_probes_for((Addr)vge->base[0]);

   Ctx c;
   VG_(memset)(&c, 0, sizeof c);
   c.out = deepCopyIRSBExceptStmts(sbIn);
   Int i = 0;
   for (; i < sbIn->stmts_used && sbIn->stmts[i]->tag != Ist_IMark; i++)
      addStmtToIRSB(c.out, sbIn->stmts[i]);

   for (; i < sbIn->stmts_used; i++) {
      IRStmt* st = sbIn->stmts[i];
      if (!st || st->tag == Ist_NoOp) continue;
      switch (st->tag) {
         case Ist_IMark: begin_insn(&c, st); break;
         case Ist_WrTmp: instrument_wrtmp(&c, st); break;
         case Ist_Store:
            access(&c, True, st->Ist.Store.addr, sizeofIRType(typeOfIRExpr(sbIn->tyenv, st->Ist.Store.data)), NULL);
            addStmtToIRSB(c.out, st);
            break;
         case Ist_StoreG: {
            IRStoreG* sg = st->Ist.StoreG.details;
            access(&c, True, sg->addr, sizeofIRType(typeOfIRExpr(sbIn->tyenv, sg->data)), sg->guard);
            addStmtToIRSB(c.out, st);
            break;
         }
         case Ist_LoadG: {
            IRLoadG* lg = st->Ist.LoadG.details;
            IRType wide, narrow;
            typeOfIRLoadGOp(lg->cvt, &wide, &narrow);
            access(&c, False, lg->addr, sizeofIRType(narrow), lg->guard);
            addStmtToIRSB(c.out, st);
            break;
         }
         case Ist_CAS: {
            IRCAS* cas = st->Ist.CAS.details;
            UInt size = sizeofIRType(typeOfIRExpr(sbIn->tyenv, cas->dataLo)) * (cas->dataHi ? 2 : 1);
            /* LOCK ADD/XADD/XCHG... load the old value first, then CAS: one read.
               CMPXCHG is a bare CAS: its read is the CAS's. */
            if (!was_loaded(&c.in, cas->addr)) access(&c, False, cas->addr, size, NULL);
            access(&c, True, cas->addr, size, NULL);
            addStmtToIRSB(c.out, st);
            break;
         }
         case Ist_LLSC: {
            IRType ty = st->Ist.LLSC.storedata ? typeOfIRExpr(sbIn->tyenv, st->Ist.LLSC.storedata)
                                              : typeOfIRTemp(sbIn->tyenv, st->Ist.LLSC.result);
            access(&c, st->Ist.LLSC.storedata != NULL, st->Ist.LLSC.addr, sizeofIRType(ty), NULL);
            addStmtToIRSB(c.out, st);
            break;
         }
         case Ist_Dirty: instrument_dirty(&c, st); break;
         case Ist_Exit: instrument_exit(&c, st); break;
         default: addStmtToIRSB(c.out, st); break;
      }
   }
   if (c.in.rep && sbIn->next->tag == Iex_Const &&
       sbIn->next->Iex.Const.con->Ico.U64 == (ULong)(c.in.addr + c.in.len))
      c.pend[C_INSTR]++;
   flush(&c);
   emit_departure_check(&c, sbIn);
   return c.out;
}

/*------------------------------------------------------------*/
/*--- Runtime helpers                                      ---*/
/*------------------------------------------------------------*/

/* A probe address was reached: "P <probe>[,<probe>...] <tid> <sp> <counts>". */
static void probe_hit(UWord slot, Addr sp)
{
   Thread* t = &threads[cur_tid];
   const Slot* s = &slots[slot];
   Bool entry = False;
   out_str("P ");
   for (Int i = 0; i < s->n; i++) {
      if (i) out_char(',');
      out_u64((ULong)s->idx[i]);
      entry |= probes[s->idx[i]].kind == PK_ENTRY;
   }
   out_char(' ');
   out_event_tail(cur_tid, sp);
   pop_below(t, sp);
   if (entry) push_entry(t, sp);
   update_innermost(t);
}

/* sp rose above a pending entry: "R <why> <tid> <sp> <counts>". */
static void departure(UWord why, Addr sp)
{
   Thread* t = &threads[cur_tid];
   pop_below(t, sp);
   update_innermost(t);
   out_str("R ");
   out_char((HChar)why);
   out_char(' ');
   out_event_tail(cur_tid, sp);
}

static UInt clo_progress_ms = 1000;
static UInt last_tick_ms;

static void start_client_code(ThreadId tid, ULong blocks)
{
   (void)blocks;
   if (tid != cur_tid) {
      fold_live();
      cur_tid = tid;
      update_innermost(thread_get(tid));
   }
   if (clo_progress_ms) {
      UInt now = VG_(read_millisecond_timer)();
      if (now - last_tick_ms >= clo_progress_ms) {
         last_tick_ms = now;
         out_str("K ");
         out_u64(proc_acc[C_INSTR] + live[C_INSTR]);
         out_char(' ');
         out_u64(now);
         out_char('\n');
         out_flush();
      }
   }
}

static void thread_created(ThreadId parent, ThreadId child)
{
   (void)parent;
   threads[child].used = False; /* set up on its first scheduling, on its own lwp */
}

static void thread_exited(ThreadId tid)
{
   Thread* t = &threads[tid];
   if (!t->used) return;
   if (tid == cur_tid) fold_live();
   out_str("X ");
   out_event_tail(tid, 0);
   t->used = False;
   t->npend = 0;
   if (tid == cur_tid) update_innermost(t);
}

static void pre_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs)
{
   (void)args; (void)nargs;
   if (sysno == __NR_execve || sysno == __NR_execveat) {
      /* If it succeeds this image ends here and no fini is called. */
      out_str("E ");
      out_event_tail(tid, 0);
      out_flush();
   }
}

static void post_syscall(ThreadId tid, UInt sysno, UWord* args, UInt nargs, SysRes res)
{
   (void)tid; (void)args; (void)nargs; (void)res;
   if (sysno == __NR_execve || sysno == __NR_execveat) out_str("e\n"); /* it failed */
}

static void fork_child(ThreadId tid)
{
   /* The buffer and file belong to the parent. Start a file of our own whose first
      values are cumulative (deltas from zero). */
   olen = 0;
   if (out_fd >= 0) VG_(close)(out_fd);
   out_fd = -1;
   for (UInt i = 0; i < VG_N_THREADS; i++)
      if (i != tid) threads[i].used = False;
   VG_(memset)(threads[tid].last, 0, sizeof threads[tid].last);
   VG_(memset)(proc_last, 0, sizeof proc_last);
   out_open(VG_(getppid)());
}

/*------------------------------------------------------------*/
/*--- Options and setup                                    ---*/
/*------------------------------------------------------------*/

static RpCacheGeom clo_levels[RP_CACHE_MAX_LEVELS];
static Int clo_n_levels;

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
   if VG_STR_CLO (arg, "--probes", clo_probes) {}
   else if VG_STR_CLO (arg, "--out-dir", clo_out_dir) {}
   else if VG_BOOL_CLO (arg, "--cache-sim", clo_cache_sim) {}
   else if VG_BOOL_CLO (arg, "--instrument", clo_instrument) {}
   else if VG_INT_CLO (arg, "--progress-interval", clo_progress_ms) {}
   else if VG_STR_CLO (arg, "--cache-level", s) {
      if (!parse_level(s)) VG_(fmsg_bad_option)(arg, "expected SIZE,WAYS,LINE in bytes (at most 4 levels)\n");
   }
   else return False;
   return True;
}

static void print_usage(void)
{
   VG_(printf)(
      "    --probes=FILE             probe addresses (written by roofprof)\n"
      "    --out-dir=DIR             write events to DIR/<pid>.<n>.events\n"
      "    --cache-sim=no|yes        simulate the cache hierarchy [no]\n"
      "    --cache-level=S,W,L       one level (size, ways, line bytes), L1 first\n"
      "    --progress-interval=MS    progress lines every MS ms, 0 = none [1000]\n");
}

static void print_debug_usage(void)
{
   VG_(printf)("    --instrument=no|yes       add no counting code: the tool's baseline cost [yes]\n");
}

static void post_clo_init(void)
{
   if (clo_cache_sim) {
      const HChar* err = clo_n_levels ? rp_cache_check(clo_levels, clo_n_levels) : "no --cache-level given";
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
      n_counters = C_CACHE + 2 * clo_n_levels;
      rp_cache_init(clo_levels, clo_n_levels, &live[C_CACHE]);
   }
   threads = VG_(calloc)("rp.threads", VG_N_THREADS, sizeof(Thread));
   load_probes();
   out_open(0);
   last_tick_ms = VG_(read_millisecond_timer)();
}

static void fini(Int exitcode)
{
   fold_live();
   for (UInt i = 0; i < VG_N_THREADS; i++) {
      if (!threads[i].used) continue;
      out_str("F ");
      out_u64((ULong)threads[i].lwp);
      out_thread_counts(i);
      out_char('\n');
   }
   out_str("Z ");
   out_u64((ULong)(UInt)exitcode);
   out_process_counts(False);
   out_char('\n');
   out_flush();
   if (out_fd >= 0) VG_(close)(out_fd);
   out_fd = -1;
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
   VG_(track_start_client_code)(start_client_code);
   VG_(track_pre_thread_ll_create)(thread_created);
   VG_(track_pre_thread_ll_exit)(thread_exited);
   VG_(atfork)(NULL, NULL, fork_child);
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
