#pragma once
// Reading a whole input file with one-line errors. Files roofprof writes go through
// common/output_file.hpp.
#include <cstddef>
#include <string>

#include "common/json_text.hpp"

namespace roofprof::result {

// The whole content of a text file (JSON: no NUL byte), at most `limit` bytes. Throws
// UserError naming the file when it cannot be read, is larger, or is not text (/dev/zero).
std::string read_whole_file(const std::string& path, const char* what, size_t limit = kMaxJsonBytes);

}  // namespace roofprof::result
