#pragma once
// Options that name one of a few values: the words, in the values' order, and the value a word
// names, both from one array of values and one function giving a value's word, so that a word is
// spelled once (runplan/option_values.cpp, survey/option_values.cpp).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof {

template <typename T, std::size_t N, typename WordOf>
std::vector<std::string> names_of(const T (&values)[N], WordOf word_of) {
  std::vector<std::string> names;
  for (T v : values) names.push_back(word_of(v));
  return names;
}

template <typename T, std::size_t N, typename WordOf>
std::optional<T> named_in(const T (&values)[N], std::string_view word, WordOf word_of) {
  for (T v : values)
    if (word == word_of(v)) return v;
  return std::nullopt;
}

}  // namespace roofprof
