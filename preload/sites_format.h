/* Combined mode's sites file, DIR/PID.sites: the functions roofprof's tracer leaves to the agent
 * of process PID. Written by the C++ side (run/combined_run.cpp: CombinedAgent::publish, whole,
 * by rename), read by the agent (preload/agent/hooks.c: read_sites) when RP_ENV_AGENT_SITES is 1.
 * One line each:
 *   <address>      hexadecimal, no prefix: a function's absolute entry address
 *   =<name>        an IFUNC by name (its calls reach an implementation chosen at run time) */
#ifndef ROOFPROF_PRELOAD_SITES_FORMAT_H
#define ROOFPROF_PRELOAD_SITES_FORMAT_H

#define RP_SITES_SUFFIX ".sites"  /* DIR/<pid>.sites */
#define RP_SITES_IFUNC_MARK '='   /* first character of an IFUNC name line */
#define RP_SITES_MAX_ADDRESSES 65536 /* the agent reads at most this many addresses */
#define RP_SITES_MAX_IFUNCS 256      /* ... and this many IFUNC names */
#define RP_SITES_LINE_MAX 160        /* bytes of a line the agent reads, newline included */

#endif
