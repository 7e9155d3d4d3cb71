#pragma once
// The values of `run`'s options that name one of a few choices, as words on the command line
// and in the result file (result::Run::scope, cache_state, backend; the words themselves are
// common/run_words.hpp's), and as the enums the plan and the run pass on: parsed once, where the
// options are read (cli/cmds/run.cpp checks the word against the names here, then takes the enum).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "counters/backend_choice.hpp"
#include "regions/tracker.hpp"

namespace roofprof::runplan {

// --cache-state: warm, the program as it runs; cold, the caches emptied before each outermost
// region call (docs/methodology.md).
enum class CacheState { Warm, Cold };

// The words each option takes, the default first: --scope process|thread,
// --cache-state warm|cold, --backend auto|perf|native|emul|time.
const std::vector<std::string>& scope_names();
const std::vector<std::string>& cache_state_names();
const std::vector<std::string>& backend_names();

// The value a word names; null when it names none.
std::optional<regions::Scope> scope_named(std::string_view word);
std::optional<CacheState> cache_state_named(std::string_view word);
std::optional<counters::BackendRequest> backend_named(std::string_view word);

// The word of a value (its name above; a backend's is counters::to_string's).
const char* to_string(regions::Scope scope);
const char* to_string(CacheState state);

}  // namespace roofprof::runplan
