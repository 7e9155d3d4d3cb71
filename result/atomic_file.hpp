#pragma once
// Replacing a file so that readers see either the old or the new content, never a mix.
#include <string>

namespace roofprof::result {

// Writes `text` to a temporary file in the directory of `path`, fsyncs it, keeps an existing
// `path` as `path.old` (hard link, so `path` never disappears; replaced if already there),
// renames the temporary file over `path` and fsyncs the directory. `what` names the file in
// messages ("result file"). Throws UserError when any step fails; no temporary file is left.
void replace_file_atomically(const std::string& path, const std::string& text, const char* what);

// The whole content of a text file (JSON: no NUL byte), at most `limit` bytes. Throws
// UserError naming the file when it cannot be read, is larger, or is not text (/dev/zero).
constexpr size_t kMaxInputBytes = size_t(1) << 30;
std::string read_whole_file(const std::string& path, const char* what, size_t limit = kMaxInputBytes);

}  // namespace roofprof::result
