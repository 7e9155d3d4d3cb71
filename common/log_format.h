/* roofprof's debug log, defined once for both sides: roofprof itself (common/log.hpp) and the
 * in-process agent (preload/agent/log.c) read the same variables, accept the same categories
 * and write lines of the same shape to the same place (docs/architecture.md, "Debug log").
 *
 *   ROOFPROF_LOG=tracer,counters,agent,emul   categories to log (all: every one)
 *   ROOFPROF_LOG_FILE=PATH                     append there (O_APPEND, so roofprof and its
 *                                              agents share the file); unset: stderr
 *
 * A line: "SECONDS.MICROS roofprof[PID] CATEGORY: TEXT" (the agent's: "... roofprof-agent[PID] agent:
 * TEXT"), SECONDS.MICROS being CLOCK_MONOTONIC when the line was written: one clock for every
 * process, so that the lines of roofprof and its agents order and subtract (start-up costs). */
#ifndef ROOFPROF_COMMON_LOG_FORMAT_H
#define ROOFPROF_COMMON_LOG_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define RP_ENV_LOG "ROOFPROF_LOG"
#define RP_ENV_LOG_FILE "ROOFPROF_LOG_FILE"

/* Category bits; rp_log_category_name gives each its word. */
#define RP_LOG_TRACER 1u
#define RP_LOG_COUNTERS 2u
#define RP_LOG_AGENT 4u
#define RP_LOG_EMUL 8u
#define RP_LOG_ALL 15u

#define RP_LOG_LINE_MAX 1024 /* bytes of a line, newline included; longer text is cut */

#ifdef __cplusplus
extern "C" {
#endif

/* "tracer,emul" -> the mask of its categories ("all": RP_LOG_ALL; empty words are skipped; NULL
 * or "": 0). An unknown word: returns -1 and points *bad (*bad_len bytes) at it. */
int rp_log_parse(const char *spec, unsigned *mask, const char **bad, size_t *bad_len);

/* The word of one category bit ("tracer"), or "?" for anything else. */
const char *rp_log_category_name(unsigned category);

/* The file descriptor to log to: PATH opened for appending (created 0644), 2 (stderr) when
 * PATH is NULL or empty, -1 when it cannot be opened. */
int rp_log_open(const char *path);

/* Formats "SECONDS.MICROS WHO[PID] CATEGORY: TEXT\n" into line (cap bytes), the time being
 * mono_ns (nanoseconds): its length, text cut to fit. */
size_t rp_log_format(char *line, size_t cap, uint64_t mono_ns, const char *who, int pid, unsigned category,
                     const char *text, size_t text_len);

/* CLOCK_MONOTONIC now, in nanoseconds (what a line's time is). */
uint64_t rp_log_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
