#include "runplan/option_values.hpp"

#include "common/run_words.hpp"
#include "common/word_table.hpp"

namespace roofprof::runplan {

namespace {

using counters::BackendRequest;

constexpr BackendRequest kBackendRequests[] = {BackendRequest::automatic, BackendRequest::perf, BackendRequest::native,
                                               BackendRequest::emul, BackendRequest::time};
constexpr regions::Scope kScopes[] = {regions::Scope::Process, regions::Scope::Thread};
constexpr CacheState kCacheStates[] = {CacheState::Warm, CacheState::Cold};
constexpr auto kWord = [](auto value) { return to_string(value); };

}  // namespace

const char* to_string(regions::Scope scope) {
  return scope == regions::Scope::Thread ? run_words::kThread : run_words::kProcess;
}

const char* to_string(CacheState state) { return state == CacheState::Cold ? run_words::kCold : run_words::kWarm; }

const std::vector<std::string>& scope_names() {
  static const std::vector<std::string> names = names_of(kScopes, kWord);
  return names;
}

const std::vector<std::string>& cache_state_names() {
  static const std::vector<std::string> names = names_of(kCacheStates, kWord);
  return names;
}

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = names_of(kBackendRequests, kWord);
  return names;
}

std::optional<regions::Scope> scope_named(std::string_view word) { return named_in(kScopes, word, kWord); }

std::optional<CacheState> cache_state_named(std::string_view word) { return named_in(kCacheStates, word, kWord); }

std::optional<BackendRequest> backend_named(std::string_view word) { return named_in(kBackendRequests, word, kWord); }

}  // namespace roofprof::runplan
