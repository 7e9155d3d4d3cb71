#include "counters/pfm_library.hpp"

#include <perfmon/pfmlib.h>
#include <perfmon/pfmlib_perf_event.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

std::atomic<int> live_instances{0};

// Sets an environment variable for the scope and restores the previous state afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::string(old);
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

PfmLibrary::PfmLibrary(bool encode_inactive) {
  if (live_instances.fetch_add(1) != 0) {
    live_instances.fetch_sub(1);
    throw std::logic_error("PfmLibrary: only one instance at a time (libpfm4 is global state)");
  }
  int rc;
  if (encode_inactive) {
    ScopedEnv env("LIBPFM_ENCODE_INACTIVE", "1");
    rc = pfm_initialize();
  } else {
    rc = pfm_initialize();
  }
  if (rc != PFM_SUCCESS) {
    live_instances.fetch_sub(1);
    throw UserError(std::string("libpfm4 failed to initialise: ") + pfm_strerror(rc) +
                    " (check that libpfm4 is installed: scripts/install-deps.sh)");
  }
}

PfmLibrary::~PfmLibrary() {
  pfm_terminate();
  live_instances.fetch_sub(1);
}

std::string PfmLibrary::version() const {
  // pfm_get_version() is the API version (always 4.0); the build records the package's.
  return ROOFPROF_LIBPFM_VERSION;
}

std::vector<std::string> PfmLibrary::present_core_pmus() const {
  std::vector<std::string> out;
  for (int p = 0; p < PFM_PMU_MAX; ++p) {
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(p), &info) != PFM_SUCCESS) continue;
    if (info.is_present && info.type == PFM_PMU_TYPE_CORE) out.emplace_back(info.name);
  }
  return out;
}

PerfEncoding PfmLibrary::encode_perf(const std::string& event) const {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.attr = &attr;
  const int rc = pfm_get_os_event_encoding(event.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
  if (rc != PFM_SUCCESS)
    throw UserError(fmt::format("cannot encode '{}' with libpfm4 {}: {}", event, version(),
                                pfm_strerror(rc)));
  return {attr.type, attr.config, attr.config1};
}

uint64_t PfmLibrary::encode_code(const std::string& event) const {
  pfm_pmu_encode_arg_t arg;
  std::memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  const int rc = pfm_get_os_event_encoding(event.c_str(), PFM_PLM3, PFM_OS_NONE, &arg);
  if (rc != PFM_SUCCESS || arg.count < 1)
    throw UserError(fmt::format("cannot encode '{}' with libpfm4 {}: {}", event, version(),
                                pfm_strerror(rc)));
  const uint64_t code = arg.codes[0];
  std::free(arg.codes);
  return code;
}

}  // namespace roofprof::counters
