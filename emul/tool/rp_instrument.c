/* roofprof emulation tool: instrumentation. Each guest instruction's costs (instructions,
 * flops by class, bytes) are computed here, once, and added to rp_live by inline IR before
 * each exit of the superblock; probes, departures and the cache simulator are helper calls. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"
#include "libvex_guest_offsets.h"

#include "rp_tool.h"

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

Bool rp_clo_cache_sim = False;
Bool rp_clo_instrument = True; /* --instrument=no: count nothing (benchmark baseline) */
Bool rp_clo_cache_inline = True; /* --cache-inline=no: call the simulator on every access (tests) */

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
   ULong pend[C_CACHE]; /* static costs not yet added to `rp_live` */
   Insn in;
   /* --annotate: the current instruction's cell, its static costs so far (`taken`: the part of
      `pend` already counted in `insn_cost`) and whether some of its costs have a guard. */
   AnnotCell* cell;
   ULong taken[C_CACHE], insn_cost[C_CACHE];
   Bool insn_partial;
} Ctx;

static void emit_add_at(IRSB* sb, HWord at, IRExpr* delta)
{
   IRTemp old = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp sum = newIRTemp(sb->tyenv, Ity_I64);
   addStmtToIRSB(sb, IRStmt_WrTmp(old, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord(at))));
   addStmtToIRSB(sb, IRStmt_WrTmp(sum, IRExpr_Binop(Iop_Add64, IRExpr_RdTmp(old), delta)));
   addStmtToIRSB(sb, IRStmt_Store(Iend_LE, mkIRExpr_HWord(at), IRExpr_RdTmp(sum)));
}

static void emit_add(IRSB* sb, Int i, IRExpr* delta) { emit_add_at(sb, (HWord)&rp_live[i], delta); }

/* rp_live[i] += guard ? v : 0 (guard is an I1 atom) */
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

/* --annotate: the pending costs added since `taken` belong to the current instruction. */
static void annot_take(Ctx* c)
{
   for (Int i = 0; i < C_CACHE; i++) {
      c->insn_cost[i] += c->pend[i] - c->taken[i];
      c->taken[i] = c->pend[i];
   }
}

/* --annotate: the current instruction's static costs are complete: into its cell. */
static void annot_finish(Ctx* c)
{
   annot_take(c);
   if (c->cell) {
      for (Int i = 0; i < C_CACHE; i++) c->cell->cost[i] = c->insn_cost[i];
      c->cell->partial = c->cell->partial || c->insn_partial;
   }
   VG_(memset)(c->insn_cost, 0, sizeof c->insn_cost);
   c->insn_partial = False;
   c->cell = NULL;
}

/* --annotate: a new instruction: its cell, and one more execution each time it runs. */
static void annot_begin(Ctx* c, Addr addr, UInt len)
{
   c->cell = rp_annot_cell(addr, len);
   emit_add_at(c->out, (HWord)&c->cell->execs, IRExpr_Const(IRConst_U64(1)));
}

static void flush(Ctx* c)
{
   fold_fp(c);
   if (rp_clo_annotate) annot_take(c);
   VG_(memset)(c->taken, 0, sizeof c->taken);
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

static IRExpr* emit_op(IRSB* sb, IRType ty, IRExpr* e)
{
   IRTemp t = newIRTemp(sb->tyenv, ty);
   addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
   return IRExpr_RdTmp(t);
}

static IRExpr* u64(ULong v) { return IRExpr_Const(IRConst_U64(v)); }

/* The simulator's fast path tested inline (rp_cache.c): the access stays within one line that
   is already the MRU way of its L1 set (and dirty, for a store); the test is rp_cache.h's, on
   the way's line address with its dirty mark. Returns a 1-bit atom, true when the helper must
   run, or NULL when there is no inline test (L1's layout allows none, or the access is larger
   than a line). `addr` is an atom. */
static IRExpr* cache_call_needed(IRSB* sb, IRExpr* addr, UInt size, Bool write)
{
   Addr ways;
   ULong set_bits;
   Int shift;
   if (size == 0 || !rp_cache_l1_layout(&ways, &set_bits, &shift)) return NULL;
   ULong line = rp_cache_line_size();
   if (size > line) return NULL;
   IRExpr* last = size == 1 ? addr : emit_op(sb, Ity_I64, IRExpr_Binop(Iop_Add64, addr, u64(size - 1)));
   IRExpr* off = emit_op(sb, Ity_I64, IRExpr_Binop(Iop_And64, addr, u64(set_bits)));
   if (shift > 0)
      off = emit_op(sb, Ity_I64, IRExpr_Binop(Iop_Shl64, off, IRExpr_Const(IRConst_U8((UChar)shift))));
   else if (shift < 0)
      off = emit_op(sb, Ity_I64, IRExpr_Binop(Iop_Shr64, off, IRExpr_Const(IRConst_U8((UChar)-shift))));
   IRExpr* at = emit_op(sb, Ity_I64, IRExpr_Binop(Iop_Add64, off, u64(ways)));
   IRExpr* mru = emit_op(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, at));
   if (write) {
      IRExpr* want = emit_op(sb, Ity_I64, IRExpr_Binop(Iop_Or64, last, u64(line - 1)));
      return emit_op(sb, Ity_I1, IRExpr_Binop(Iop_CmpNE64, mru, want));
   }
   IRExpr* differ = emit_op(sb, Ity_I64, IRExpr_Binop(Iop_Xor64, mru, last));
   return emit_op(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, u64(line - 1), differ));
}

static void emit_cache_call(Ctx* c, Bool write, IRExpr* addr, UInt size, IRExpr* guard)
{
   void* fn = !write ? (void*)rp_cache_load : c->in.nt ? (void*)rp_cache_store_nt : (void*)rp_cache_store;
   const HChar* name = !write ? "rp_cache_load" : c->in.nt ? "rp_cache_store_nt" : "rp_cache_store";
   IRDirty* d;
   if (c->cell) { /* --annotate: the traffic goes to the instruction's cell too */
      fn = !write ? (void*)rp_annot_load : c->in.nt ? (void*)rp_annot_store_nt : (void*)rp_annot_store;
      d = unsafeIRDirty_0_N(3, name, VG_(fnptr_to_fnentry)(fn),
                            mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size), mkIRExpr_HWord((HWord)c->cell)));
   } else {
      d = unsafeIRDirty_0_N(2, name, VG_(fnptr_to_fnentry)(fn), mkIRExprVec_2(addr, mkIRExpr_HWord((HWord)size)));
   }
   IRExpr* needed = c->in.nt || !rp_clo_cache_inline ? NULL : cache_call_needed(c->out, addr, size, write);
   if (needed && !is_true(guard)) needed = emit_op(c->out, Ity_I1, IRExpr_Binop(Iop_And1, guard, needed));
   if (needed)
      d->guard = needed;
   else if (!is_true(guard))
      d->guard = guard;
   addStmtToIRSB(c->out, IRStmt_Dirty(d));
}

/* A memory access of `size` bytes at the atom `addr`, performed when `guard` holds. */
static void access(Ctx* c, Bool write, IRExpr* addr, UInt size, IRExpr* guard)
{
   Int k = write ? C_WR : C_RD;
   if (is_true(guard)) {
      c->pend[k] += size;
   } else {
      emit_add_guarded(c->out, k, guard, size);
      c->insn_partial = True;
   }
   if (rp_clo_cache_sim) emit_cache_call(c, write, addr, size, guard);
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


static void begin_insn(Ctx* c, const IRStmt* st)
{
   Insn* in = &c->in;
   fold_fp(c);
   if (rp_clo_annotate) annot_finish(c);
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
   if (rp_clo_annotate) annot_begin(c, in->addr, in->len);
   Int s = rp_slot_at(in->addr);
   if (s >= 0) {
      /* Counters must be exact at the boundary: add everything before this instruction. */
      flush(c);
      IRTemp sp = newIRTemp(c->out->tyenv, Ity_I64);
      addStmtToIRSB(c->out, IRStmt_WrTmp(sp, IRExpr_Get(OFFSET_amd64_RSP, Ity_I64)));
      IRDirty* dd = unsafeIRDirty_0_N(0, "rp_probe_hit", VG_(fnptr_to_fnentry)(rp_probe_hit),
                                      mkIRExprVec_2(mkIRExpr_HWord((HWord)s), IRExpr_RdTmp(sp)));
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
   if (c->in.rep && dst->tag == Ico_U64 && dst->Ico.U64 == (ULong)(c->in.addr + c->in.len)) {
      emit_add_guarded(c->out, C_INSTR, st->Ist.Exit.guard, 1);
      c->insn_partial = True;
   }
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
   UWord why = ret ? RP_DEPART_RETURN : RP_DEPART_JUMP;
   if (VG_(get_fnname)(VG_(current_DiEpoch)(), c->in.addr, &fn) && fn) {
      if (VG_(strstr)(fn, "_Unwind_")) why = RP_DEPART_EXCEPTION;
      else if (!ret && VG_(strstr)(fn, "longjmp")) why = RP_DEPART_LONGJMP;
   }
   IRSB* sb = c->out;
   IRTemp sp = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp inner = newIRTemp(sb->tyenv, Ity_I64);
   IRTemp above = newIRTemp(sb->tyenv, Ity_I1);
   addStmtToIRSB(sb, IRStmt_WrTmp(sp, IRExpr_Get(OFFSET_amd64_RSP, Ity_I64)));
   addStmtToIRSB(sb, IRStmt_WrTmp(inner, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)&rp_cur_innermost))));
   addStmtToIRSB(sb, IRStmt_WrTmp(above, IRExpr_Binop(Iop_CmpLT64U, IRExpr_RdTmp(inner), IRExpr_RdTmp(sp))));
   IRDirty* d = unsafeIRDirty_0_N(0, "rp_departure", VG_(fnptr_to_fnentry)(rp_departure),
                                  mkIRExprVec_2(mkIRExpr_HWord(why), IRExpr_RdTmp(sp)));
   d->guard = IRExpr_RdTmp(above);
   addStmtToIRSB(sb, IRStmt_Dirty(d));
}

IRSB* rp_instrument(VgCallbackClosure* closure, IRSB* sbIn, const VexGuestLayout* layout,
                           const VexGuestExtents* vge, const VexArchInfo* archinfo_host,
                           IRType gWordTy, IRType hWordTy)
{
   (void)closure; (void)layout; (void)archinfo_host;
   if (gWordTy != hWordTy) VG_(tool_panic)("host/guest word size mismatch");
   if (!rp_clo_instrument) return sbIn;
   rp_resolve_probes_for((Addr)vge->base[0]);
   if (rp_in_agent((Addr)vge->base[0])) return sbIn; /* the agent's code counts nothing */

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
   if (rp_clo_annotate) annot_finish(&c);
   emit_departure_check(&c, sbIn);
   return c.out;
}
