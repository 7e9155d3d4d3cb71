/* roofprof emulation tool: cache hierarchy simulator.
 *
 * One hierarchy for the whole process (valgrind runs one thread at a time). Levels are
 * inclusive, LRU, write-allocate and write-back, all with one line size. Traffic is
 * counted at each interface j (j = 1 .. n; interface j feeds level j-1 from level j, and
 * interface n is DRAM):
 *   read[j]  += line size for every line that level j-1 fetches from below it;
 *   write[j] += line size when a line becomes dirty above interface j for the first time
 *               since it was last written back through it ("charged at dirtying": the
 *               write-back a store will cause is counted when the store happens, so a
 *               region pays for the write-backs it causes even if the eviction comes later).
 * Non-temporal stores bypass the hierarchy: copies of the line are invalidated and the
 * bytes are counted as DRAM writes.
 *
 * Non-inclusive last level (victim), as on AMD since Zen and Intel's server parts since Skylake:
 * the last level n-1 (n >= 2) holds only lines the level above it evicted, clean or dirty. A
 * miss of level n-2 that hits there moves the line up (read[n-1], the line leaves the last level
 * with its dirty mark); one that misses comes straight from DRAM (read[n]; nothing at interface
 * n-1). Each line level n-2 evicts enters the last level: write[n-1] += line size, charged at
 * that eviction, clean lines too. The last level's evictions remove nothing above it (no copy
 * is there). DRAM writes stay charged at dirtying: when a line becomes dirty with no dirty copy
 * below L1. The levels above the last stay inclusive of each other. */
#ifndef RP_CACHE_H
#define RP_CACHE_H

#include "pub_tool_basics.h"

#define RP_CACHE_MAX_LEVELS 4

typedef struct {
   ULong size;   /* bytes */
   ULong assoc;  /* ways */
   ULong line;   /* bytes, a power of two, equal at every level */
} RpCacheGeom;

/* Checks a geometry; returns NULL when usable, else a message. */
const HChar* rp_cache_check(const RpCacheGeom* levels, Int n);

/* `counters` receives 2*n values: read[1], write[1], read[2], write[2], ... `victim_last`: the
   last level is non-inclusive (above); needs n >= 2. */
void rp_cache_init(const RpCacheGeom* levels, Int n, Bool victim_last, ULong* counters);

/* Empties every level (the cold scenario, --cold-at-entry). Dirty lines are dropped without
   adding traffic: their write-backs were charged when they became dirty, before the flush. */
void rp_cache_flush(void);

/* Where the L1 ways live, for instrumentation that tests the fast path inline. Way 0 (the MRU)
   of the set of address a is at ways + (shift >= 0 ? (a & set_bits) << shift
   : (a & set_bits) >> -shift). A way holds the address of its line's first byte, with the bits
   below the line size all set when the line is dirty and all clear when it is clean (an empty
   way never matches). So an access of size <= line size to [a, last] (last = a + size - 1) is
   on the fast path exactly when, for a load, (way ^ last) < line size and, for a store,
   way == (last | (line size - 1)): the way holds last's line, and since adjacent lines are in
   different sets (at least two sets), that is also a's line. False when L1's set count is not a
   power of two or is 1 (no inline test then). Fixed from rp_cache_init on. */
Bool rp_cache_l1_layout(Addr* ways, ULong* set_bits, Int* shift);
ULong rp_cache_line_size(void);

VG_REGPARM(2) void rp_cache_load(Addr a, UWord size);
VG_REGPARM(2) void rp_cache_store(Addr a, UWord size);
VG_REGPARM(2) void rp_cache_store_nt(Addr a, UWord size);

#endif
