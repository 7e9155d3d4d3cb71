#pragma once
// Sets ROOFPROF_HOST_CACHES (common/cache_info.hpp) for a scope, or unsets it (nullptr), and puts
// back what was there: the suite itself may run under another host's caches
// (scripts/check-any-host.sh).
#include <cstdlib>
#include <optional>
#include <string>

#include "common/cache_info.hpp"

namespace roofprof::test_support {

class HostCachesVariable {
 public:
  explicit HostCachesVariable(const char* value) {
    if (const char* old = std::getenv(kHostCachesVariable)) old_ = old;
    if (value) ::setenv(kHostCachesVariable, value, 1);
    else ::unsetenv(kHostCachesVariable);
  }
  ~HostCachesVariable() {
    if (old_) ::setenv(kHostCachesVariable, old_->c_str(), 1);
    else ::unsetenv(kHostCachesVariable);
  }
  HostCachesVariable(const HostCachesVariable&) = delete;
  HostCachesVariable& operator=(const HostCachesVariable&) = delete;

 private:
  std::optional<std::string> old_;
};

}  // namespace roofprof::test_support
