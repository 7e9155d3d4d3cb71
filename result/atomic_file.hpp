#pragma once
// Reading a whole input file with one-line errors. Files roofprof writes go through
// common/output_file.hpp.
#include <string>

namespace roofprof::result {

// The whole content of a file. Throws UserError naming the file when it cannot be read.
std::string read_whole_file(const std::string& path, const char* what);

}  // namespace roofprof::result
