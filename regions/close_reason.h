/* Why a region instance closed: one numbering for regions::CloseReason (C++), the preload
 * agent's records (preload/record_format.h) and the Valgrind tool, which passes the agent's
 * reasons on in its event files ("A" lines, emul/events.hpp). Plain C: the agent and the
 * tool are C. The agent writes RP_REASON_RETURN to RP_REASON_CRASH; span stops and detaching
 * are seen on the C++ side only. regions::close_reason() is the one code -> reason mapping. */
#ifndef ROOFPROF_REGIONS_CLOSE_REASON_H
#define ROOFPROF_REGIONS_CLOSE_REASON_H

enum rp_reason {
  RP_REASON_RETURN = 0,       /* the function returned normally */
  RP_REASON_LONGJMP = 1,      /* a longjmp left the function */
  RP_REASON_EXCEPTION = 2,    /* exception unwinding left the function */
  RP_REASON_UNWOUND = 3,      /* the stack was found above the entry later (cause not seen) */
  RP_REASON_THREAD_EXIT = 4,  /* the thread exited inside the region */
  RP_REASON_PROCESS_EXIT = 5, /* the process exited inside the region */
  RP_REASON_CRASH = 6,        /* the process died of a signal inside the region */
  RP_REASON_SPAN_STOP = 7,    /* a span reached STOP */
  RP_REASON_DETACH = 8,       /* roofprof detached or was interrupted inside the region */
  RP_REASONS = 9,             /* how many reasons there are */
};

#endif
