#include "survey/option_values.hpp"

namespace roofprof::survey {

namespace {

using counters::BackendRequest;

constexpr BackendRequest kSurveyBackends[] = {BackendRequest::automatic, BackendRequest::emul};

// The names of `values`, in their order.
template <typename T, size_t N>
std::vector<std::string> names_of(const T (&values)[N]) {
  std::vector<std::string> names;
  for (auto v : values) names.push_back(to_string(v));
  return names;
}

// The value of `values` whose name is `word`.
template <typename T, size_t N>
std::optional<T> named_in(const T (&values)[N], std::string_view word) {
  for (auto v : values)
    if (word == to_string(v)) return v;
  return std::nullopt;
}

constexpr SortKey kSortKeys[] = {SortKey::Time, SortKey::Work};
constexpr Unwind kUnwinds[] = {Unwind::Cfi, Unwind::Fp};

}  // namespace

const char* to_string(SortKey key) { return key == SortKey::Work ? "work" : "time"; }

const char* to_string(Unwind unwind) { return unwind == Unwind::Fp ? "fp" : "cfi"; }

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = names_of(kSurveyBackends);
  return names;
}

const std::vector<std::string>& sort_names() {
  static const std::vector<std::string> names = names_of(kSortKeys);
  return names;
}

const std::vector<std::string>& unwind_names() {
  static const std::vector<std::string> names = names_of(kUnwinds);
  return names;
}

std::optional<BackendRequest> backend_named(std::string_view word) { return named_in(kSurveyBackends, word); }

std::optional<SortKey> sort_named(std::string_view word) { return named_in(kSortKeys, word); }

std::optional<Unwind> unwind_named(std::string_view word) { return named_in(kUnwinds, word); }

}  // namespace roofprof::survey
