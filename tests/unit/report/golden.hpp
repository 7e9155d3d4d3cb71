#pragma once
// Golden-file comparison. ROOFPROF_UPDATE_GOLDEN=1 rewrites the files under
// tests/unit/report/golden/ instead of comparing (review the diff before committing).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace roofprof::report::testing {

// What `print` writes to a FILE*.
inline std::string capture(const std::function<void(std::FILE*)>& print) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  print(f);
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(SOURCE_DIR) + "/tests/unit/report/golden/" + name;
  const char* update = std::getenv("ROOFPROF_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    std::fprintf(stderr, "updated golden file %s\n", path.c_str());
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path
                  << " (run the test with ROOFPROF_UPDATE_GOLDEN=1 to create it)";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(actual, expected.str())
      << "output differs from " << path
      << " (if the change is intended, rerun with ROOFPROF_UPDATE_GOLDEN=1 and review the diff)";
}

}  // namespace roofprof::report::testing
