#include "common/temp_dir.hpp"

#include <stdlib.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "common/error.hpp"

namespace roofprof {

std::string temp_root() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? base : "/tmp";
}

TempDir::TempDir(const std::string& prefix, const std::string& what) {
  std::string tmpl = temp_root() + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw UserError(advice_for_errno(errno, ("creating a directory for " + what).c_str()));
  path_ = tmpl;
}

TempDir::~TempDir() {
  if (keep_) {
    std::fprintf(stderr, "roofprof: kept %s\n", path_.c_str());
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace roofprof
