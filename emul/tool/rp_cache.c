/* roofprof emulation tool: cache hierarchy simulator (see rp_cache.h for the model). */
#include "rp_cache.h"

#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"

/* A way holds the address of its line's first byte, with the bits below the line size all set
   when the line is dirty (all clear when clean): the form inline IR tests cheaply (rp_cache.h). */
#define EMPTY (~0ULL) /* the dirty form of the last line of the address space: never used */

typedef struct {
   ULong* ways; /* nsets sets of `stride` entries; the first `assoc` of a set in MRU .. LRU order;
                   64-byte aligned, so that a set of up to 8 ways is one host cache line */
   UWord nsets, assoc, stride;
   Bool pow2;
} Level;

static Level lv[RP_CACHE_MAX_LEVELS];
static Int nlv;
static Bool victim_last; /* the last level is non-inclusive, filled by the victims of the one above */
static UInt line_bits;
static ULong line_size;
static ULong DIRTY; /* line_size - 1: a way's dirty mark */
static ULong* ctr; /* read[j] at 2*(j-1), write[j] at 2*(j-1)+1 */

/* L1's ways live here when they fit: a static address, below 2 GiB, lets the inline test fold it
   into the load's displacement. */
#define SET_ALIGN 64 /* bytes: every level's ways start on a host cache line */
#define L1_STATIC_ENTRIES 8192
static ULong l1_static[L1_STATIC_ENTRIES] __attribute__((aligned(SET_ALIGN)));

static inline ULong tag(ULong e) { return e >> line_bits; }
static inline ULong entry(ULong line) { return line << line_bits; }

/*------------------------------------------------------------*/
/*--- Sets                                                 ---*/
/*------------------------------------------------------------*/

static inline ULong* set_of(const Level* l, ULong line)
{
   UWord s = l->pow2 ? (UWord)(line & (l->nsets - 1)) : (UWord)(line % l->nsets);
   return l->ways + s * l->stride;
}

/* The way of `set` holding `line`, or -1. A way matches when it equals the line's entry up to
   the dirty mark; the empty way is the dirty form of a line never used. */
static inline Int find(const Level* l, const ULong* set, ULong line)
{
   ULong key = entry(line) | DIRTY;
   for (UWord w = 0; w < l->assoc; w++)
      if ((set[w] | DIRTY) == key) return (Int)w;
   return -1;
}

static inline void to_front(ULong* set, Int w)
{
   ULong e = set[w];
   for (Int i = w; i > 0; i--) set[i] = set[i - 1];
   set[0] = e;
}

/* Puts `e` at MRU and returns the entry pushed out of LRU (EMPTY if none). */
static inline ULong insert(const Level* l, ULong* set, ULong e)
{
   ULong victim = set[l->assoc - 1];
   for (UWord i = l->assoc - 1; i > 0; i--) set[i] = set[i - 1];
   set[0] = e;
   return victim;
}

static inline void remove_at(const Level* l, ULong* set, Int w)
{
   for (UWord i = (UWord)w; i + 1 < l->assoc; i++) set[i] = set[i + 1];
   set[l->assoc - 1] = EMPTY;
}

/*------------------------------------------------------------*/
/*--- Hierarchy                                            ---*/
/*------------------------------------------------------------*/

static inline Bool is_victim_level(Int k) { return victim_last && k == nlv - 1; }

static void evict(Int k, ULong victim);
static void fill(Int k, ULong line);

/* Level k misses `line`: brings it from below, counting the read, and returns the dirty mark it
   comes with (a line leaving a non-inclusive last level keeps it; one from an inclusive level
   or DRAM comes clean). */
static ULong fetch(Int k, ULong line)
{
   if (is_victim_level(k + 1)) {
      const Level* v = &lv[k + 1];
      ULong* set = set_of(v, line);
      Int w = find(v, set, line);
      if (w < 0) {
         ctr[2 * (k + 1)] += line_size; /* read from DRAM, past the last level */
         return 0;
      }
      ULong dirty = set[w] & DIRTY;
      remove_at(v, set, w);
      ctr[2 * k] += line_size; /* read through interface k+1 */
      return dirty;
   }
   fill(k + 1, line);
   ctr[2 * k] += line_size; /* read through interface k+1 */
   return 0;
}

/* Makes `line` present in level k >= 1, fetching it from below when absent. */
static void fill(Int k, ULong line)
{
   if (k >= nlv) return; /* memory */
   const Level* l = &lv[k];
   ULong* set = set_of(l, line);
   Int w = find(l, set, line);
   if (w >= 0) {
      if (w) to_front(set, w);
      return;
   }
   ULong dirty = fetch(k, line);
   evict(k, insert(l, set, entry(line) | dirty));
}

/* `victim` left level k: drop copies above it (inclusion) and write dirty data below; into a
   non-inclusive last level, every victim goes. */
static void evict(Int k, ULong victim)
{
   if (victim == EMPTY || is_victim_level(k)) return; /* nothing above holds it; write-backs charged */
   ULong line = tag(victim);
   Bool dirty = (victim & DIRTY) != 0;
   for (Int j = 0; j < k; j++) {
      ULong* set = set_of(&lv[j], line);
      Int w = find(&lv[j], set, line);
      if (w >= 0) {
         if (set[w] & DIRTY) dirty = True;
         remove_at(&lv[j], set, w);
      }
   }
   if (is_victim_level(k + 1)) {
      ctr[2 * k + 1] += line_size; /* written through interface k+1, clean or dirty */
      const Level* b = &lv[k + 1];
      insert(b, set_of(b, line), entry(line) | (dirty ? DIRTY : 0)); /* its own victim just leaves */
      return;
   }
   if (!dirty || k + 1 >= nlv) return; /* write-backs were charged at dirtying */
   const Level* b = &lv[k + 1];
   ULong* set = set_of(b, line);
   Int w = find(b, set, line);
   if (w >= 0)
      set[w] |= DIRTY;
   else
      evict(k + 1, insert(b, set, entry(line) | DIRTY)); /* not reached while inclusive */
}

/* The L1 copy of `line` goes from clean to dirty: charge the write-back through every
   interface below which no dirty copy exists yet. Interface j feeds level j from level j-1
   (DRAM when j == n). A non-inclusive last level's interface is charged when lines enter it, and
   it holds no copy of a line that is in L1. */
static void charge_dirtying(ULong line)
{
   for (Int j = 1; j <= nlv; j++) {
      if (is_victim_level(j)) continue;
      ctr[2 * (j - 1) + 1] += line_size;
      if (j == nlv) return;
      const ULong* set = set_of(&lv[j], line);
      Int w = find(&lv[j], set, line);
      if (w >= 0 && (set[w] & DIRTY)) return;
   }
}

static void access_line(ULong line, Bool write)
{
   const Level* l = &lv[0];
   ULong* set = set_of(l, line);
   Int w = find(l, set, line);
   if (w >= 0) {
      if (w) to_front(set, w);
      if (write && !(set[0] & DIRTY)) {
         charge_dirtying(line);
         set[0] |= DIRTY;
      }
      return;
   }
   ULong dirty = fetch(0, line);
   ULong victim = insert(l, set, entry(line) | dirty);
   if (write && !dirty) {
      charge_dirtying(line);
      set[0] |= DIRTY;
   }
   evict(0, victim);
}

/*------------------------------------------------------------*/
/*--- Interface                                            ---*/
/*------------------------------------------------------------*/

const HChar* rp_cache_check(const RpCacheGeom* g, Int n)
{
   if (n < 1 || n > RP_CACHE_MAX_LEVELS) return "between 1 and 4 cache levels are supported";
   for (Int k = 0; k < n; k++) {
      if (g[k].line < 2 || (g[k].line & (g[k].line - 1)) != 0)
         return "line size must be a power of two, at least 2";
      if (g[k].line != g[0].line) return "all levels must have the same line size";
      if (g[k].assoc == 0 || g[k].size == 0 || g[k].size % (g[k].assoc * g[k].line) != 0)
         return "size must be a multiple of ways * line size";
   }
   return NULL;
}

void rp_cache_init(const RpCacheGeom* g, Int n, Bool victim, ULong* counters)
{
   tl_assert(rp_cache_check(g, n) == NULL);
   tl_assert(!victim || n >= 2);
   nlv = n;
   victim_last = victim;
   ctr = counters;
   line_size = g[0].line;
   DIRTY = line_size - 1;
   line_bits = 0;
   while ((1ULL << line_bits) < line_size) line_bits++;
   for (Int k = 0; k < n; k++) {
      Level* l = &lv[k];
      l->assoc = (UWord)g[k].assoc;
      l->nsets = (UWord)(g[k].size / (g[k].assoc * g[k].line));
      l->pow2 = (l->nsets & (l->nsets - 1)) == 0;
      l->stride = l->assoc;
      if (k == 0) /* L1: sets a power of two bytes apart, so that the inline test needs no multiply */
         while (l->stride & (l->stride - 1)) l->stride++;
      UWord entries = l->nsets * l->stride;
      if (k == 0 && entries <= L1_STATIC_ENTRIES)
         l->ways = l1_static;
      else { /* never freed: the hierarchy lives as long as the process */
         Addr raw = (Addr)VG_(malloc)("rp.cache.ways", entries * sizeof(ULong) + SET_ALIGN);
         l->ways = (ULong*)((raw + SET_ALIGN - 1) & ~(Addr)(SET_ALIGN - 1));
      }
      for (UWord i = 0; i < entries; i++) l->ways[i] = EMPTY;
   }
}

void rp_cache_flush(void)
{
   for (Int k = 0; k < nlv; k++)
      for (UWord i = 0; i < lv[k].nsets * lv[k].stride; i++) lv[k].ways[i] = EMPTY;
}

Bool rp_cache_l1_layout(Addr* ways, ULong* set_bits, Int* shift)
{
   if (nlv == 0 || !lv[0].pow2 || lv[0].nsets < 2) return False;
   UInt stride_bits = 0;
   while ((1ULL << stride_bits) < lv[0].stride * sizeof(ULong)) stride_bits++;
   *ways = (Addr)lv[0].ways;
   *set_bits = (lv[0].nsets - 1) << line_bits;
   *shift = (Int)stride_bits - (Int)line_bits;
   return True;
}

ULong rp_cache_line_size(void) { return line_size; }

/* The fast path, taken by most accesses: one line, already the most recently used way of its
   L1 set (and already dirty, for a store). Nothing changes in the hierarchy then: no LRU order,
   no traffic. The instrumentation tests it inline and calls only when it fails
   (rp_instrument.c, cache_call_needed), so the helpers do not test it again: access_line finds
   such a line at way 0 and returns. */
VG_REGPARM(2) void rp_cache_load(Addr a, UWord size)
{
   if (size == 0) return;
   ULong first = a >> line_bits, last = (a + size - 1) >> line_bits;
   for (ULong line = first; line <= last; line++) access_line(line, False);
}

VG_REGPARM(2) void rp_cache_store(Addr a, UWord size)
{
   if (size == 0) return;
   ULong first = a >> line_bits, last = (a + size - 1) >> line_bits;
   for (ULong line = first; line <= last; line++) access_line(line, True);
}

VG_REGPARM(2) void rp_cache_store_nt(Addr a, UWord size)
{
   if (size == 0) return;
   ULong last = (a + size - 1) >> line_bits;
   for (ULong line = a >> line_bits; line <= last; line++) {
      for (Int k = 0; k < nlv; k++) {
         ULong* set = set_of(&lv[k], line);
         Int w = find(&lv[k], set, line);
         if (w >= 0) remove_at(&lv[k], set, w);
      }
   }
   ctr[2 * (nlv - 1) + 1] += size;
}
