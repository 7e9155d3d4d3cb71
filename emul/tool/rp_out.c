/* roofprof emulation tool: the event file (format in emul/events.hpp, letters in
 * emul/events_format.h). */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcfile.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_vki.h"

#include "rp_tool.h"

/*------------------------------------------------------------*/
/*--- Output                                               ---*/
/*------------------------------------------------------------*/

const HChar* rp_clo_out_dir = NULL;
static Int out_fd = -1;
static HChar obuf[1 << 16];
static Int olen;

/* Backpressure: roofprof reads the event file while the program runs and gives each MiB it has
   read back to the file system (a punched hole). When the file holds more than RP_OUT_PENDING
   bytes on disk the reader has fallen behind (starved of CPU), so the program waits for it, a
   millisecond at a time, checked every RP_OUT_CHECK bytes written. A reader that frees nothing
   for RP_OUT_PATIENCE_MS (a file system without holes) is not waited for again. */
#define RP_OUT_PENDING (24ULL << 20)
#define RP_OUT_CHECK (1ULL << 20)
#define RP_OUT_PATIENCE_MS 10000
static ULong written_since_check;
static Bool reader_frees = True;

static ULong disk_bytes(void)
{
   struct vg_stat st;
   if (VG_(fstat)(out_fd, &st) != 0) return 0;
   return st.blocks * 512;
}

static void wait_for_reader(void)
{
   ULong held = disk_bytes(), waited_ms = 0;
   while (held > RP_OUT_PENDING) {
      ULong before = held;
      VG_(poll)(NULL, 0, 1);
      held = disk_bytes();
      waited_ms = held < before ? 0 : waited_ms + 1;
      if (waited_ms >= RP_OUT_PATIENCE_MS) {
         reader_frees = False;
         return;
      }
   }
}

void rp_out_flush(void)
{
   Int off = 0;
   while (out_fd >= 0 && off < olen) {
      Int n = VG_(write)(out_fd, obuf + off, olen - off);
      if (n <= 0) break;
      off += n;
   }
   olen = 0;
   written_since_check += (ULong)off;
   if (reader_frees && out_fd >= 0 && written_since_check >= RP_OUT_CHECK) {
      written_since_check = 0;
      wait_for_reader();
   }
}

static void out_room(Int n)
{
   if (olen + n > (Int)sizeof obuf) rp_out_flush();
}

void rp_out_str(const HChar* s)
{
   Int n = VG_(strlen)(s);
   if (n > (Int)sizeof obuf / 2) n = sizeof obuf / 2;
   out_room(n);
   VG_(memcpy)(obuf + olen, s, n);
   olen += n;
}

void rp_out_char(HChar c)
{
   out_room(1);
   obuf[olen++] = c;
}

void rp_out_event(enum rp_event e)
{
   rp_out_char((HChar)e);
   rp_out_char(' ');
}

void rp_out_u64(ULong v)
{
   HChar tmp[24];
   Int n = 0;
   do {
      tmp[n++] = (HChar)('0' + v % 10);
      v /= 10;
   } while (v);
   out_room(n);
   while (n) obuf[olen++] = tmp[--n];
}

void rp_out_hex(ULong v)
{
   HChar tmp[20];
   Int n = 0;
   do {
      tmp[n++] = "0123456789abcdef"[v & 15];
      v >>= 4;
   } while (v);
   out_room(n);
   while (n) obuf[olen++] = tmp[--n];
}

/* " <deltas of the thread>" */
void rp_out_thread_counts(ThreadId tid)
{
   Thread* t = &rp_threads[tid];
   for (Int i = 0; i < rp_n_counters; i++) {
      ULong v = t->acc[i] + (tid == rp_cur_tid ? rp_live[i] : 0);
      rp_out_char(' ');
      rp_out_u64(v - t->last[i]);
      t->last[i] = v;
   }
}

/* " <deltas of the process>", or " =" while only one thread ever existed. */
void rp_out_process_counts(Bool allow_same)
{
   Bool same = allow_same && rp_n_threads_ever <= 1;
   if (same) rp_out_str(" =");
   for (Int i = 0; i < rp_n_counters; i++) {
      ULong v = rp_proc_acc[i] + rp_live[i];
      if (!same) {
         rp_out_char(' ');
         rp_out_u64(v - rp_proc_last[i]);
      }
      rp_proc_last[i] = v;
   }
}

/* "<tid> <sp> <thread counts> | <process counts>\n" */
void rp_out_event_tail(ThreadId tid, Addr sp)
{
   rp_out_u64((ULong)rp_threads[tid].lwp);
   rp_out_char(' ');
   rp_out_hex(sp);
   rp_out_thread_counts(tid);
   rp_out_str(" |");
   rp_out_process_counts(True);
   rp_out_char('\n');
}

static void out_header(Int parent)
{
   rp_out_str(RP_EVENTS_MAGIC "\npid ");
   rp_out_u64((ULong)VG_(getpid)());
   rp_out_str(" parent ");
   rp_out_u64((ULong)parent);
   rp_out_str("\ncounters");
   for (Int i = 0; i < rp_n_counters; i++) {
      rp_out_char(' ');
      rp_out_str(rp_counter_name(i));
   }
   rp_out_char('\n');
}

/* Opens DIR/<pid>.<seq>.events with the first free seq (an exec'd image keeps the pid). */
void rp_out_open(Int parent)
{
   if (!rp_clo_out_dir) return;
   HChar* path = VG_(malloc)("rp.out", VG_(strlen)(rp_clo_out_dir) + 64);
   for (Int seq = 0; seq < 1000; seq++) {
      VG_(sprintf)(path, "%s/%d.%d.events", rp_clo_out_dir, VG_(getpid)(), seq);
      SysRes r = VG_(open)(path, VKI_O_CREAT | VKI_O_EXCL | VKI_O_WRONLY, 0600);
      if (!sr_isError(r)) {
         out_fd = (Int)sr_Res(r);
         break;
      }
      if (sr_Err(r) != VKI_EEXIST) break;
   }
   if (out_fd < 0) VG_(umsg)("roofprof: cannot create an event file in %s\n", rp_clo_out_dir);
   VG_(free)(path);
   olen = 0;
   out_header(parent);
}

void rp_out_drop(void)
{
   olen = 0;
   if (out_fd >= 0) VG_(close)(out_fd);
   out_fd = -1;
}

void rp_out_close(void)
{
   rp_out_flush();
   if (out_fd >= 0) VG_(close)(out_fd);
   out_fd = -1;
}
