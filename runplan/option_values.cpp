#include "runplan/option_values.hpp"

#include "common/run_words.hpp"

namespace roofprof::runplan {

namespace {

using counters::BackendRequest;

constexpr BackendRequest kBackendRequests[] = {BackendRequest::automatic, BackendRequest::perf, BackendRequest::native,
                                               BackendRequest::emul, BackendRequest::time};

}  // namespace

const char* to_string(regions::Scope scope) {
  return scope == regions::Scope::Thread ? run_words::kThread : run_words::kProcess;
}

const char* to_string(CacheState state) { return state == CacheState::Cold ? run_words::kCold : run_words::kWarm; }

const std::vector<std::string>& scope_names() {
  static const std::vector<std::string> names{to_string(regions::Scope::Process), to_string(regions::Scope::Thread)};
  return names;
}

const std::vector<std::string>& cache_state_names() {
  static const std::vector<std::string> names{to_string(CacheState::Warm), to_string(CacheState::Cold)};
  return names;
}

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> words;
    for (auto b : kBackendRequests) words.push_back(counters::to_string(b));
    return words;
  }();
  return names;
}

std::optional<regions::Scope> scope_named(std::string_view word) {
  for (auto s : {regions::Scope::Process, regions::Scope::Thread})
    if (word == to_string(s)) return s;
  return std::nullopt;
}

std::optional<CacheState> cache_state_named(std::string_view word) {
  for (auto c : {CacheState::Warm, CacheState::Cold})
    if (word == to_string(c)) return c;
  return std::nullopt;
}

std::optional<BackendRequest> backend_named(std::string_view word) {
  for (auto b : kBackendRequests)
    if (word == counters::to_string(b)) return b;
  return std::nullopt;
}

}  // namespace roofprof::runplan
