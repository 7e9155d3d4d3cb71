/* roofprof emulation tool: probe addresses. They come as (module path, link-time address)
 * from --probes=FILE and are resolved to run-time addresses when code of an object is first
 * translated, from the object's resolved file name and load bias. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "rp_tool.h"

/*------------------------------------------------------------*/
/*--- Probes                                               ---*/
/*------------------------------------------------------------*/

const HChar* rp_clo_probes = NULL;
Probe* rp_probes;
static Int n_probes;

/* Runtime addresses of resolved probes, sorted; each names a slot (a list of probes). */
typedef struct {
   Addr addr;
   Int slot;
} Site;

static Site* sites;
static Int n_sites, cap_sites;
static Slot* slots;
static Int n_slots, cap_slots;

/* Objects whose probes were resolved (a DebugInfo, its text address and file name). */
typedef struct {
   const DebugInfo* di;
   Addr avma;
   HChar* file;
} Seen;
static Seen* seen;
static Int n_seen, cap_seen;

void rp_load_probes(void)
{
   if (!rp_clo_probes) return;
   SysRes r = VG_(open)(rp_clo_probes, VKI_O_RDONLY, 0);
   if (sr_isError(r)) {
      VG_(fmsg)("roofprof: cannot open probe file %s\n", rp_clo_probes);
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
   /* Lines: "roofprof-probes 2" then "<role>\t<hex link address>\t<module path>", the role a
    * number of probes/site_role.h. */
   Int lines = 0;
   for (Int i = 0; i < len; i++) lines += buf[i] == '\n';
   rp_probes = VG_(calloc)("rp.probes", lines + 1, sizeof(Probe));
   HChar* p = buf;
   Bool header = True;
   while (*p) {
      HChar* eol = VG_(strchr)(p, '\n');
      if (eol) *eol = 0;
      if (header) {
         if (!VG_STREQ(p, RP_PROBE_FILE_MAGIC)) {
            VG_(fmsg)("roofprof: %s is not a roofprof probe file\n", rp_clo_probes);
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
         Probe* pr = &rp_probes[n_probes++];
         Long role = VG_(strtoll10)(p, NULL);
         if (role < 0 || role >= RP_SITE_ROLES) {
            VG_(fmsg)("roofprof: unknown site role in probe line: %s\n", p);
            VG_(exit)(2);
         }
         pr->kind = (Int)role;
         pr->link = (Addr)VG_(strtoull16)(t1 + 1, NULL);
         pr->path = t2 + 1;
      }
      if (!eol) break;
      p = eol + 1;
   }
   /* buf stays allocated: the probes point into it. */
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
      slots[n_slots].n = slots[n_slots].cap = 0;
      slots[n_slots].idx = NULL;
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
   for (Int k = 0; k < s->n; k++)
      if (s->idx[k] == probe) return; /* an object mapped again at the same address */
   if (s->n == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 4;
      s->idx = VG_(realloc)("rp.slot", s->idx, s->cap * sizeof(Int));
   }
   s->idx[s->n++] = probe;
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
void rp_resolve_probes_for(Addr a)
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
   const HChar* file = VG_(DebugInfo_get_filename)(di);
   if (!file) file = "";
   for (Int i = 0; i < n_seen; i++)
      if (seen[i].di == di && seen[i].avma == avma && VG_STREQ(seen[i].file, file)) return;
   if (n_seen == cap_seen) {
      cap_seen = cap_seen ? 2 * cap_seen : 16;
      seen = VG_(realloc)("rp.seen", seen, cap_seen * sizeof(Seen));
   }
   seen[n_seen].di = di;
   seen[n_seen].avma = avma;
   seen[n_seen].file = VG_(strdup)("rp.seen.file", file);
   n_seen++;
   PtrdiffT bias = VG_(DebugInfo_get_text_bias)(di);
   sites_drop(avma, avma + VG_(DebugInfo_get_text_size)(di));
   Int matched = 0;
   for (Int i = 0; i < n_probes; i++) {
      if (VG_STREQ(rp_probes[i].path, file)) {
         site_add(rp_probes[i].link + bias, i);
         matched++;
      }
   }
   if (matched) {
      rp_out_event(RP_EV_MAPPED);
      rp_out_hex((ULong)bias);
      rp_out_char(' ');
      rp_out_u64((ULong)matched);
      rp_out_char(' ');
      rp_out_str(file);
      rp_out_char('\n');
   }
}

Int rp_slot_at(Addr a)
{
   Int i = n_sites ? site_find(a) : -1;
   return i < 0 ? -1 : sites[i].slot;
}

const Slot* rp_slot(Int slot) { return &slots[slot]; }
