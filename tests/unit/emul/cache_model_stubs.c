/* Host stand-ins for the few Valgrind core functions emul/tool/rp_cache.c calls, so that the
   cache simulator links into a native unit test (tests/unit/emul/cache_model_test.cpp).
   Allocations are remembered so that the test can release them before it calls rp_cache_init
   again (rp_cache.c never frees its ways: inside Valgrind it is initialised once). */
#include <stdio.h>
#include <stdlib.h>

#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_mallocfree.h"

#define MAX_LIVE 64
static void* live[MAX_LIVE];

void* VG_(malloc)(const HChar* cc, SizeT nbytes)
{
   void* p = malloc(nbytes ? nbytes : 1);
   if (p == NULL) {
      fprintf(stderr, "cache model stub: out of memory (%s, %lu bytes)\n", cc, (unsigned long)nbytes);
      abort();
   }
   for (int i = 0; i < MAX_LIVE; i++)
      if (live[i] == NULL) {
         live[i] = p;
         return p;
      }
   fprintf(stderr, "cache model stub: more than %d live allocations\n", MAX_LIVE);
   abort();
}

void VG_(free)(void* p)
{
   for (int i = 0; i < MAX_LIVE; i++)
      if (live[i] == p && p != NULL) live[i] = NULL;
   free(p);
}

void VG_(assert_fail)(Bool isCore, const HChar* expr, const HChar* file, Int line, const HChar* fn,
                      const HChar* format, ...)
{
   (void)isCore;
   (void)format;
   fprintf(stderr, "%s:%d: %s: assertion '%s' failed\n", file, line, fn, expr);
   abort();
}

/* Frees everything VG_(malloc) handed out: call only when no simulator state is in use. */
void rp_cache_stub_release_all(void)
{
   for (int i = 0; i < MAX_LIVE; i++) {
      free(live[i]);
      live[i] = NULL;
   }
}
