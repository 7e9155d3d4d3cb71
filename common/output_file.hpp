#pragma once
// Every file roofprof writes where the user said (-o, --svg, --html, --csv, --json, the
// ceilings cache): checked before the work whose result goes there, replaced atomically when it
// is a regular file, written in place when it is a device or a pipe (never renamed over, never
// kept as .old), and saved to a fallback file when writing fails, so that nothing measured is
// lost and nothing of the user's system is replaced.
#include <string>

namespace roofprof {

enum class OutputKind {
  Stream,   // "-", /dev/stdout, /dev/stderr (and their /dev/fd, /proc/self/fd forms): a descriptor
  Special,  // an existing character device or FIFO (e.g. /dev/null), or a symlink to one
  Regular,  // a regular file, existing or not (a symlink to one: the file it points to)
};

struct OutputTarget {
  std::string path;      // as the user gave it, for messages
  std::string resolved;  // where it is written: symlinks followed (Regular, Special)
  OutputKind kind = OutputKind::Regular;
  int fd = -1;           // Stream: 1 or 2
};

// Decides how `path` is written and checks that it can be: a directory, a block device, a
// socket, a dangling symlink, a missing or unwritable directory are refused with a UserError
// naming `what` ("result file") and what to do. For a regular file the check creates and
// removes a file in its directory, so a read-only file system is found now, not after the run.
OutputTarget check_output(const std::string& path, const char* what);

enum class KeepPrevious { no, yes };  // yes: an existing regular file is kept as PATH.old

// Writes `text` to the target. Regular: a temporary file in the same directory, fsync, the
// previous file kept as PATH.old when asked (a hard link, so PATH never disappears), rename,
// fsync of the directory. Special and Stream: written in place. When writing fails, `text` is
// saved to a fallback file (the current directory, else $TMPDIR or /tmp) and the UserError names
// both the failure and the fallback.
void write_output(const OutputTarget& target, const std::string& text, const char* what,
                  KeepPrevious keep = KeepPrevious::no);

// check_output then write_output: for files whose content exists before the name is known.
void write_output_file(const std::string& path, const std::string& text, const char* what,
                       KeepPrevious keep = KeepPrevious::no);

}  // namespace roofprof
