#pragma once
// Every file roofprof writes where the user said (-o, --svg, --html, --csv, --json, the
// ceilings cache): checked before the work whose result goes there, replaced atomically when it
// is a regular file, written in place when it is a device or a pipe (never renamed over, never
// kept as .old), and saved to a fallback file when writing fails, so that nothing measured is
// lost and nothing of the user's system is replaced.
#include <memory>
#include <string>

namespace roofprof {

class NameClaim;

enum class OutputKind {
  Stream,   // "-", /dev/stdout, /dev/stderr (and their /dev/fd, /proc/self/fd forms): a descriptor
  Special,  // an existing character device or FIFO (e.g. /dev/null), or a symlink to one
  Regular,  // a regular file, existing or not (a symlink to one: the file it points to)
};

struct OutputTarget {
  std::string path;      // as the user gave it, for messages
  std::string resolved;  // where it is written: Regular: `path` itself (never through a symlink);
                         // Special: the device or FIFO the name leads to
  OutputKind kind = OutputKind::Regular;
  int fd = -1;           // Stream: 1 or 2
  std::shared_ptr<const NameClaim> claim;  // claim_output: the name is this process's while held
};

// Decides how `path` is written and checks that it can be: a directory, a block device, a
// socket, a missing or unwritable directory are refused with a UserError naming `what` ("result
// file") and what to do. A symbolic link is never written through to a file: only a link of
// yours (or root's) to a character device or FIFO is followed; any other link (to a file, to
// nothing, or someone else's) is refused. An existing file of another user in a sticky
// directory (/tmp) is refused too. For a regular file the check creates and removes a file in
// its directory, so a read-only file system is found now, not after the run.
OutputTarget check_output(const std::string& path, const char* what);

// Holds an output name for this process: a lock (flock) on DIR/.NAME.lock, removed when the
// claim ends. Another roofprof choosing a default name (claim_output) skips a held name.
class NameClaim {
 public:
  // The claim, or null when another process holds the name (or no lock file can be made).
  static std::unique_ptr<NameClaim> try_claim(const std::string& path);
  ~NameClaim();
  NameClaim(const NameClaim&) = delete;
  NameClaim& operator=(const NameClaim&) = delete;

 private:
  NameClaim(int fd, std::string lock_path) : fd_(fd), lock_path_(std::move(lock_path)) {}
  int fd_;
  std::string lock_path_;
};

// check_output for a default name (run and survey without -o): `path` when no other roofprof
// run holds it, else NAME.1.EXT, NAME.2.EXT, ... (roofprof.1.json): the first name no run holds,
// claimed for as long as the target (or a copy) lives. An existing file of that name from an
// earlier run is replaced as check_output's are.
OutputTarget claim_output(const std::string& path, const char* what);

enum class KeepPrevious { no, yes };  // yes: an existing regular file is kept as PATH.old

// Writes `text` to the target. Regular: a temporary file in the same directory with the mode
// and owner of the file it replaces (where this user may set them), the previous file kept as
// PATH.old when asked (a hard link, so PATH never disappears), rename over PATH (over a symlink
// planted since the check, never through it). Atomic against a crash or a signal of roofprof
// or of the program; not flushed to the disk (no fsync, as perf.data: two fsyncs cost 0.5 ms on
// the development VM's quiet disk and 9-16 ms while builds write to it). Special and Stream: written in place. When writing fails, `text` is
// saved to a fallback file (the current directory, else $TMPDIR or /tmp) and the UserError names
// both the failure and the fallback.
void write_output(const OutputTarget& target, const std::string& text, const char* what,
                  KeepPrevious keep = KeepPrevious::no);

// check_output then write_output: for files whose content exists before the name is known.
void write_output_file(const std::string& path, const std::string& text, const char* what,
                       KeepPrevious keep = KeepPrevious::no);

}  // namespace roofprof
