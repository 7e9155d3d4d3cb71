#include "survey/option_values.hpp"

#include "common/word_table.hpp"

namespace roofprof::survey {

namespace {

using counters::BackendRequest;

constexpr BackendRequest kSurveyBackends[] = {BackendRequest::automatic, BackendRequest::emul};

constexpr SortKey kSortKeys[] = {SortKey::Time, SortKey::Work};
constexpr Unwind kUnwinds[] = {Unwind::Cfi, Unwind::Fp};
constexpr auto kWord = [](auto value) { return to_string(value); };

}  // namespace

const char* to_string(SortKey key) { return key == SortKey::Work ? "work" : "time"; }

const char* to_string(Unwind unwind) { return unwind == Unwind::Fp ? "fp" : "cfi"; }

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = names_of(kSurveyBackends, kWord);
  return names;
}

const std::vector<std::string>& sort_names() {
  static const std::vector<std::string> names = names_of(kSortKeys, kWord);
  return names;
}

const std::vector<std::string>& unwind_names() {
  static const std::vector<std::string> names = names_of(kUnwinds, kWord);
  return names;
}

std::optional<BackendRequest> backend_named(std::string_view word) { return named_in(kSurveyBackends, word, kWord); }

std::optional<SortKey> sort_named(std::string_view word) { return named_in(kSortKeys, word, kWord); }

std::optional<Unwind> unwind_named(std::string_view word) { return named_in(kUnwinds, word, kWord); }

}  // namespace roofprof::survey
