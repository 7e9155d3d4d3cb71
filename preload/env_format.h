/* The environment variables through which roofprof configures the in-process agent: set by the
 * C++ side (run/agent_env.cpp, run/combined_run.cpp, emul/emul.cpp), read by the agent
 * (preload/agent/config.c, scripted_pmu.c, environ.c). Defined once here; what each means is
 * in preload/agent/config.c and docs/preload.md. */
#ifndef ROOFPROF_PRELOAD_ENV_FORMAT_H
#define ROOFPROF_PRELOAD_ENV_FORMAT_H

/* Every agent variable begins with this (the agent hides them from the program's children). */
#define RP_ENV_AGENT_PREFIX "ROOFPROF_AGENT_"

#define RP_ENV_AGENT_DIR "ROOFPROF_AGENT_DIR"
#define RP_ENV_AGENT_REGIONS "ROOFPROF_AGENT_REGIONS"
#define RP_ENV_AGENT_SCOPE "ROOFPROF_AGENT_SCOPE"
#define RP_ENV_AGENT_SCOPE_THREAD "thread"
#define RP_ENV_AGENT_SCOPE_PROCESS "process"
#define RP_ENV_AGENT_EVENTS "ROOFPROF_AGENT_EVENTS"
#define RP_ENV_AGENT_USER_LEVEL "ROOFPROF_AGENT_USER_LEVEL"
#define RP_ENV_AGENT_PID "ROOFPROF_AGENT_PID"
#define RP_ENV_AGENT_FOLLOW_FORK "ROOFPROF_AGENT_FOLLOW_FORK"
#define RP_ENV_AGENT_CONSUMER "ROOFPROF_AGENT_CONSUMER"
#define RP_ENV_AGENT_RING "ROOFPROF_AGENT_RING"
#define RP_ENV_AGENT_EVICT_BYTES "ROOFPROF_AGENT_EVICT_BYTES"
#define RP_ENV_AGENT_EMUL "ROOFPROF_AGENT_EMUL"
#define RP_ENV_AGENT_DEBUG "ROOFPROF_AGENT_DEBUG"
#define RP_ENV_AGENT_SCRIPTED_PMU "ROOFPROF_AGENT_SCRIPTED_PMU"
#define RP_ENV_AGENT_SITES "ROOFPROF_AGENT_SITES"
#define RP_ENV_AGENT_CALLERS "ROOFPROF_AGENT_CALLERS"
#define RP_ENV_AGENT_CHEAP_FACTOR "ROOFPROF_AGENT_CHEAP_FACTOR"

#endif
