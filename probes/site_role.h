/* Site roles: what a probe at an address does to its region. One definition for the C++ side
 * (probes::SiteRole), the Valgrind tool (emul/tool) and the probe file between them, which
 * names a role by its number. Plain C: the tool is C. */
#ifndef ROOFPROF_PROBES_SITE_ROLE_H
#define ROOFPROF_PROBES_SITE_ROLE_H

enum rp_site_role {
  RP_SITE_ENTRY = 0,      /* a function's entry: opens an instance, its return closes it */
  RP_SITE_SPAN_START = 1, /* opens a span (or a call of an inlined copy) unless open on the thread */
  RP_SITE_SPAN_STOP = 2,  /* closes it */
  RP_SITE_SPAN_RESUME = 3, /* control came back into an inlined copy's code elsewhere than its
                              entry point: reopens it unless open, continuing its last call (no
                              new call) */
  RP_SITE_ROLES = 4,      /* how many roles there are */
};

/* The probe file (written by emul::write_probe_file, read by emul/tool/rp_probes.c): this
 * line, then one line a probe: "<role>\t<link-time address, hex>\t<module path>". */
#define RP_PROBE_FILE_MAGIC "roofprof-probes 2"

#endif
