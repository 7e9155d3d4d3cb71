// libFuzzer target for the loaders of untrusted files: the result file and the ceilings file.
// Contract: any input either loads or fails with UserError (one line, exit status 2); nothing
// else may escape, crash, hang or allocate without bound. Built with clang -fsanitize=fuzzer
// (tests/fuzz/CMakeLists.txt) and, with any compiler, as a corpus replay (corpus_main.cpp).
#include <cstddef>
#include <cstdint>
#include <string>

#include "ceilings/json.hpp"
#include "common/error.hpp"
#include "result/result.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    roofprof::result::parse_file_text(text, "fuzz.json");
  } catch (const roofprof::UserError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();  // one line
  }
  try {
    roofprof::ceilings::parse(text, "fuzz.json");
  } catch (const roofprof::UserError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
