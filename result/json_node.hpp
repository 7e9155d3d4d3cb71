#pragma once
// Internal: checked access to a parsed JSON document. Every accessor throws UserError with
// the member's path ("regions[2].calls: expected a non-negative integer, found a string").
#include <cstdint>
#include <nlohmann/json.hpp>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

namespace roofprof::result {

class JsonNode {
 public:
  JsonNode(const nlohmann::json& value, std::string path) : value_(value), path_(std::move(path)) {}

  const nlohmann::json& value() const { return value_; }
  const std::string& path() const { return path_; }

  JsonNode member(const char* key) const;  // required member of an object
  bool has(const char* key) const;         // an object with that member
  JsonNode element(size_t index) const;    // element of an array (index < size())
  size_t size() const;                     // of an array
  const nlohmann::json& object() const;    // the value, checked to be an object
  bool is_null() const { return value_.is_null(); }

  // Control characters (C0, DEL, C1) are replaced by "\xNN" text: names from a file never
  // reach a terminal as escape sequences.
  std::string string() const;
  // One of `allowed` (listed in the message otherwise).
  std::string one_of(std::initializer_list<std::string_view> allowed) const;
  bool boolean() const;
  double number() const;   // any finite JSON number
  double amount() const;   // a finite number >= 0 (times, flops, bytes)
  std::optional<double> amount_or_null() const;
  int integer_in(int lo, int hi) const;
  std::optional<int> integer_in_or_null(int lo, int hi) const;
  uint64_t count() const;  // a non-negative integer
  int integer() const;     // an integer that fits in int
  std::optional<double> number_or_null() const;
  std::optional<int> integer_or_null() const;

  [[noreturn]] void fail(std::string_view what) const;

 private:
  [[noreturn]] void expected(std::string_view what) const;
  const nlohmann::json& value_;
  std::string path_;
};

}  // namespace roofprof::result
