/* The agent inside roofprof's valgrind tool (ROOFPROF_AGENT_EMUL=1: the emulated run of
 * `roofprof run --no-ptrace --backend emul`). Hooks, trampolines and the shadow stack are the
 * same as in a native run, so a region covers the same calls; only the boundaries go to the
 * tool as client requests (emul/tool/rp_clreq.h) instead of records with perf counts, and the
 * tool stamps them with its exact counts. The agent's own code is declared to the tool, which
 * counts nothing in it: an instance holds the hooked function's work alone. */
#include <link.h>
#include <string.h>

#include "emul/tool/rp_clreq.h"
#include "preload/agent/agent.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define RP_HAVE_VALGRIND_H 1
#endif

#ifdef RP_HAVE_VALGRIND_H
/* No record file: this header only keeps the shared flags and warning counts that thread.c
 * updates; table lines are dropped (table_bytes = 0). */
static struct rp_file_header emul_header;

struct text_range {
  uintptr_t base, lo, hi;
};

static int find_text(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  struct text_range *r = data;
  if ((uintptr_t)info->dlpi_addr != r->base) return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD || !(p->p_flags & PF_X)) continue;
    uintptr_t lo = info->dlpi_addr + p->p_vaddr, hi = lo + p->p_memsz;
    if (r->lo == 0 || lo < r->lo) r->lo = lo;
    if (hi > r->hi) r->hi = hi;
  }
  return 1;
}
#endif

int rp_emul_start(void) {
#ifdef RP_HAVE_VALGRIND_H
  /* Silent: the valgrind launcher itself inherits LD_PRELOAD, and so do programs valgrind
   * runs natively (exec'd children without --trace-children); neither is measured. */
  if (!RUNNING_ON_VALGRIND) return -1;
  struct text_range r = {rp.self_base, 0, 0};
  dl_iterate_phdr(find_text, &r);
  if (r.lo == 0 ||
      VALGRIND_DO_CLIENT_REQUEST_EXPR(0, RP_CLREQ_AGENT_TEXT, r.lo, r.hi, 0, 0, 0) != 1) {
    rp_log("roofprof's valgrind tool did not answer the agent; agent off");
    return -1;
  }
  memset(&emul_header, 0, sizeof emul_header);
  rp.file = &emul_header;
  rp.n_events = rp.n_groups = rp.n_times = rp.n_values = 0;
  return 0;
#else
  rp_log("this agent was built without valgrind.h: ROOFPROF_AGENT_EMUL is not supported; agent off");
  return -1;
#endif
}

void rp_emul_emit(const struct rp_thread *t, int kind, int reason, uint32_t region, uint64_t sp) {
#ifdef RP_HAVE_VALGRIND_H
  uint32_t spec = 0;
  const char *symbol = NULL;
  unsigned flags = 0;
  if (kind == RP_ENTER && region < rp.n_regions) {
    spec = rp.regions[region].spec;
    symbol = rp.regions[region].symbol;
    /* Outermost: no other recorded call of this thread in progress (the entry's own frame is
     * pushed already); the tool's cold scenario empties its caches there. */
    unsigned open = 0;
    for (uint32_t i = 0; i < t->depth; ++i) open += !(t->frames[i].flags & RP_FRAME_SILENT);
    if (open == 1) flags |= RP_CLREQ_OUTERMOST;
  }
  VALGRIND_DO_CLIENT_REQUEST_STMT(RP_CLREQ_BOUNDARY, flags | ((unsigned)kind << 8) | (unsigned)reason, region, sp,
                                  spec, symbol);
#else
  (void)t, (void)kind, (void)reason, (void)region, (void)sp;
#endif
}
