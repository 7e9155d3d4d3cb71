/* roofprof emulation tool: boundaries reported by the in-process agent (client requests,
 * rp_clreq.h). With `roofprof run --no-ptrace --backend emul` the emulated run preloads the
 * agent, which hooks exactly what it hooks natively and reports each of its records here;
 * the tool writes them with its counters:
 *   N <region> <spec> <symbol>                       first use of an agent region id
 *   A <kind> <reason> <region> <tid> <sp> <counts>   an agent record (preload/record_format.h)
 * The agent's own code is declared once (RP_CLREQ_AGENT_TEXT); nothing executed there is
 * counted (rp_in_agent, used by the instrumenter), so an instance holds the hooked function's
 * instructions, flops and bytes only, as with an entry probe. */
#include "pub_tool_basics.h"
#include "pub_tool_clreq.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"

#include "preload/record_format.h"
#include "rp_clreq.h"
#include "rp_tool.h"

static Addr agent_lo, agent_hi; /* the agent's executable segment; empty until it says */
static Bool* named;             /* agent region ids with an N line in this event file */
static UWord n_named;

Bool rp_in_agent(Addr a) { return a >= agent_lo && a < agent_hi; }

void rp_agent_fork_child(void)
{
   if (named) VG_(memset)(named, 0, n_named * sizeof(Bool)); /* a new event file */
}

static void name_region(UWord region, UWord spec, const HChar* symbol)
{
   if (region >= 1u << 20) return; /* not an agent region id (RP_MAX_REGIONS is 4096) */
   if (region >= n_named) {
      UWord n = region + 64;
      named = VG_(realloc)("rp.agent.named", named, n * sizeof(Bool));
      VG_(memset)(named + n_named, 0, (n - n_named) * sizeof(Bool));
      n_named = n;
   }
   if (named[region]) return;
   named[region] = True;
   rp_out_event(RP_EV_AGENT_REGION);
   rp_out_u64(region);
   rp_out_char(' ');
   rp_out_u64(spec);
   rp_out_char(' ');
   rp_out_str(symbol && *symbol ? symbol : "?");
   rp_out_char('\n');
}

Bool rp_agent_request(ThreadId tid, UWord* args, UWord* ret)
{
   if (!VG_IS_TOOL_USERREQ('R', 'P', args[0])) return False;
   *ret = 0;
   switch (args[0]) {
      case RP_CLREQ_AGENT_TEXT:
         if (args[2] <= args[1]) return True;
         agent_lo = args[1];
         agent_hi = args[2];
         /* Code of the agent translated before it spoke (its constructor) is counted no more. */
         VG_(discard_translations_safely)(agent_lo, agent_hi - agent_lo, "roofprof agent text");
         *ret = 1;
         return True;
      case RP_CLREQ_BOUNDARY: {
         UWord kind = (args[1] >> 8) & 0xff, reason = args[1] & 0xff;
         if (kind == RP_ENTER) {
            name_region(args[2], args[4], (const HChar*)args[5]);
            if (args[1] & RP_CLREQ_OUTERMOST) rp_cold_entry();
         }
         rp_out_event(RP_EV_AGENT_RECORD);
         rp_out_u64(kind);
         rp_out_char(' ');
         rp_out_u64(reason);
         rp_out_char(' ');
         rp_out_u64(args[2]);
         rp_out_char(' ');
         rp_out_event_tail(tid, (Addr)args[3]);
         *ret = 1;
         return True;
      }
      default: return False;
   }
}
