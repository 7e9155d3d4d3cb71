/* Client requests between the in-process agent (preload/agent/emul.c) and roofprof's
 * valgrind tool (emul/tool/rp_agent.c): plain C, included by both. Codes follow valgrind's
 * VG_USERREQ_TOOL_BASE('R','P'). In the emulated run of `roofprof run --no-ptrace`, the agent
 * hooks what it always hooks and reports its boundaries this way; the tool stamps each with
 * its exact counters (docs/emulation.md, "Regions marked by the agent").
 *
 *   RP_CLREQ_AGENT_TEXT (lo, hi)                the agent's code: the tool counts nothing there
 *   RP_CLREQ_BOUNDARY   (flags | kind << 8 | reason, region, sp, spec, symbol)
 *                       one agent record (preload/record_format.h: enum rp_kind, rp_reason);
 *                       spec and symbol (a NUL-terminated raw name) name region on RP_ENTER;
 *                       RP_CLREQ_OUTERMOST: an entry with no other recorded call of its thread
 *                       in progress (where --cold-at-entry empties the simulated caches) */
#ifndef RP_CLREQ_H
#define RP_CLREQ_H

#define RP_CLREQ_BASE ((((unsigned int)'R' & 0xff) << 24) | (((unsigned int)'P' & 0xff) << 16))
#define RP_CLREQ_AGENT_TEXT (RP_CLREQ_BASE + 1)
#define RP_CLREQ_BOUNDARY (RP_CLREQ_BASE + 2)
#define RP_CLREQ_OUTERMOST 0x10000u

#endif
