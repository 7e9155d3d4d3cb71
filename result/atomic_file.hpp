#pragma once
// Replacing a file so that readers see either the old or the new content, never a mix.
#include <string>

namespace roofprof::result {

// Writes `text` to a temporary file in the directory of `path`, fsyncs it, keeps an existing
// `path` as `path.old` (hard link, so `path` never disappears; replaced if already there),
// renames the temporary file over `path` and fsyncs the directory. `what` names the file in
// messages ("result file"). Throws UserError when any step fails; no temporary file is left.
void replace_file_atomically(const std::string& path, const std::string& text, const char* what);

// The whole content of a file. Throws UserError naming the file when it cannot be read.
std::string read_whole_file(const std::string& path, const char* what);

}  // namespace roofprof::result
