#include "runplan/option_values.hpp"

namespace roofprof::runplan {

const char* to_string(regions::Scope scope) { return scope == regions::Scope::Thread ? "thread" : "process"; }

const char* to_string(CacheState state) { return state == CacheState::Cold ? "cold" : "warm"; }

const std::vector<std::string>& scope_names() {
  static const std::vector<std::string> names{to_string(regions::Scope::Process), to_string(regions::Scope::Thread)};
  return names;
}

const std::vector<std::string>& cache_state_names() {
  static const std::vector<std::string> names{to_string(CacheState::Warm), to_string(CacheState::Cold)};
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

}  // namespace roofprof::runplan
