/* The event files of the Valgrind tool (emul/tool) as emul::EventParser (emul/events.cpp)
 * reads them: the first line and the letters that begin event lines and name departures, one
 * definition for both sides. The fields of each line: emul/events.hpp. Plain C: the tool is C. */
#ifndef ROOFPROF_EMUL_EVENTS_FORMAT_H
#define ROOFPROF_EMUL_EVENTS_FORMAT_H

#define RP_EVENTS_MAGIC "roofprof-emul 1" /* the first line of every event file */

/* The first field of an event line. */
enum rp_event {
  RP_EV_PROBE = 'P',        /* a probe address was reached */
  RP_EV_DEPARTURE = 'R',    /* sp rose above a probed entry (enum rp_departure) */
  RP_EV_THREAD_EXIT = 'X',  /* a thread exited */
  RP_EV_EXEC = 'E',         /* execve attempted */
  RP_EV_EXEC_FAILED = 'e',  /* it failed */
  RP_EV_FINAL = 'F',        /* a live thread's final values at process end */
  RP_EV_END = 'Z',          /* the process ended: exit code, process deltas */
  RP_EV_PROGRESS = 'K',     /* instructions so far */
  RP_EV_MAPPED = 'M',       /* an object with probes was mapped */
  RP_EV_AGENT_REGION = 'N', /* the in-process agent's region id (emul/tool/rp_agent.c) */
  RP_EV_AGENT_RECORD = 'A', /* one record of the agent (preload/record_format.h) */
};

/* Why sp rose above a probed entry: the field after RP_EV_DEPARTURE. */
enum rp_departure {
  RP_DEPART_RETURN = 'r',    /* a ret */
  RP_DEPART_LONGJMP = 'l',   /* an indirect jump in longjmp */
  RP_DEPART_EXCEPTION = 'x', /* a ret or jump in exception unwinding (_Unwind_*) */
  RP_DEPART_JUMP = 'j',      /* another indirect jump */
};

/* The tool's command-line options as emul::run (emul/emul.cpp) writes them and the tool's
 * process_option (emul/tool/rp_main.c) reads them: "OPTION=value". */
#define RP_OPT_PROBES "--probes"                       /* FILE: the probe addresses */
#define RP_OPT_OUT_DIR "--out-dir"                     /* DIR: the event files */
#define RP_OPT_CACHE_SIM "--cache-sim"                 /* yes|no */
#define RP_OPT_INSTRUMENT "--instrument"               /* yes|no */
#define RP_OPT_CACHE_INLINE "--cache-inline"           /* yes|no */
#define RP_OPT_ANNOTATE "--annotate"                   /* yes|no */
#define RP_OPT_PROGRESS_INTERVAL "--progress-interval" /* milliseconds, 0: none */
#define RP_OPT_COLD_AT_ENTRY "--cold-at-entry"         /* yes|no */
#define RP_OPT_CLEAN_EXEC_ENV "--clean-exec-env"       /* yes|no */
#define RP_OPT_CACHE_LEVEL "--cache-level"             /* SIZE,WAYS,LINE in bytes, L1 first */
#define RP_OPT_CACHE_LAST "--cache-last"               /* inclusive|victim */

#endif
