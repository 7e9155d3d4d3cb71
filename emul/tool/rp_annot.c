/* roofprof emulation tool: counts per guest instruction, for `roofprof annotate`
 * (--annotate=yes). Each instruction translated gets a cell with its static costs (the
 * counters of rp_tool.h that inline IR adds per execution: instructions, flops by class, bytes)
 * and an execution count that inline IR increments at its IMark. Costs that depend on a guard
 * (masked and conditional accesses, REP iterations) are not in the static costs: such cells say
 * so (`partial`). At exit, DIR/<pid>.annot lists every executed instruction as
 *   <module path>\t<link-time address hex> <length> <executions> <partial> <cost...> | <traffic...>
 * after a line "counters <names...> | <names...>": the costs per execution of the first C_CACHE
 * counters, then the simulated traffic its accesses caused in all (with --cache-sim). */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "rp_tool.h"

Bool rp_clo_annotate = False;

#define BUCKETS (1u << 16)
static AnnotCell* buckets[BUCKETS];

static UInt bucket_of(Addr a) { return (UInt)((a ^ (a >> 16) ^ (a >> 32)) & (BUCKETS - 1)); }

AnnotCell* rp_annot_cell(Addr addr, UInt len)
{
   UInt b = bucket_of(addr);
   for (AnnotCell* c = buckets[b]; c; c = c->next)
      if (c->addr == addr && c->len == len) return c; /* translated again: the same cell */
   AnnotCell* c = VG_(calloc)("rp.annot.cell", 1, sizeof(AnnotCell));
   c->addr = addr;
   c->len = len;
   c->next = buckets[b];
   buckets[b] = c;
   return c;
}

/* The simulator's counters (rp_live from C_CACHE on) moved by one access go to its cell too. */
#define ATTRIBUTE(call)                                                        \
   do {                                                                        \
      ULong before[2 * RP_CACHE_MAX_LEVELS];                                   \
      const Int n = rp_n_counters - C_CACHE;                                   \
      for (Int i = 0; i < n; i++) before[i] = rp_live[C_CACHE + i];            \
      call;                                                                    \
      for (Int i = 0; i < n; i++) c->traffic[i] += rp_live[C_CACHE + i] - before[i]; \
   } while (0)

VG_REGPARM(3) void rp_annot_load(Addr a, UWord size, AnnotCell* c) { ATTRIBUTE(rp_cache_load(a, size)); }
VG_REGPARM(3) void rp_annot_store(Addr a, UWord size, AnnotCell* c) { ATTRIBUTE(rp_cache_store(a, size)); }
VG_REGPARM(3) void rp_annot_store_nt(Addr a, UWord size, AnnotCell* c) { ATTRIBUTE(rp_cache_store_nt(a, size)); }

/* A forked child counts its own executions only. */
void rp_annot_fork_child(void)
{
   for (UInt b = 0; b < BUCKETS; b++)
      for (AnnotCell* c = buckets[b]; c; c = c->next) {
         c->execs = 0;
         VG_(memset)(c->traffic, 0, sizeof c->traffic);
      }
}

static void put(Int fd, const HChar* s) { VG_(write)(fd, s, VG_(strlen)(s)); }

void rp_annot_write(void)
{
   if (!rp_clo_annotate || !rp_clo_out_dir) return;
   HChar* path = VG_(malloc)("rp.annot.path", VG_(strlen)(rp_clo_out_dir) + 32);
   VG_(sprintf)(path, "%s/%d.annot", rp_clo_out_dir, VG_(getpid)());
   SysRes r = VG_(open)(path, VKI_O_CREAT | VKI_O_TRUNC | VKI_O_WRONLY, 0600);
   VG_(free)(path);
   if (sr_isError(r)) return;
   Int fd = (Int)sr_Res(r);
   put(fd, "counters");
   for (Int i = 0; i < C_CACHE; i++) {
      put(fd, " ");
      put(fd, rp_counter_name(i));
   }
   put(fd, " | ");
   for (Int i = C_CACHE; i < rp_n_counters; i++) {
      put(fd, " ");
      put(fd, rp_counter_name(i));
   }
   put(fd, "\n");
   HChar line[512];
   const DiEpoch ep = VG_(current_DiEpoch)();
   for (UInt b = 0; b < BUCKETS; b++) {
      for (AnnotCell* c = buckets[b]; c; c = c->next) {
         if (c->execs == 0) continue;
         const DebugInfo* di = VG_(find_DebugInfo)(ep, c->addr);
         const HChar* file = di ? VG_(DebugInfo_get_filename)(di) : NULL;
         if (!file) continue; /* code outside any object (JIT): nothing to annotate */
         put(fd, file);
         VG_(sprintf)(line, "\t%lx %u %llu %d", (unsigned long)(c->addr - VG_(DebugInfo_get_text_bias)(di)), c->len,
                      c->execs, c->partial ? 1 : 0);
         put(fd, line);
         for (Int i = 0; i < C_CACHE; i++) {
            VG_(sprintf)(line, " %llu", c->cost[i]);
            put(fd, line);
         }
         put(fd, " | ");
         for (Int i = C_CACHE; i < rp_n_counters; i++) {
            VG_(sprintf)(line, " %llu", c->traffic[i - C_CACHE]);
            put(fd, line);
         }
         put(fd, "\n");
      }
   }
   VG_(close)(fd);
}
