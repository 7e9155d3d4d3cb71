#include "result/json_node.hpp"

#include <climits>
#include <cmath>

#include "common/strings.hpp"

#include "common/error.hpp"

namespace roofprof::result {

namespace {
std::string a_type(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "null";
    case nlohmann::json::value_t::object:
      return "an object";
    case nlohmann::json::value_t::array:
      return "an array";
    case nlohmann::json::value_t::string:
      return "a string";
    case nlohmann::json::value_t::boolean:
      return "a boolean";
    case nlohmann::json::value_t::number_float:
      return "a fractional number";
    case nlohmann::json::value_t::number_integer:
      return v.get<int64_t>() < 0 ? "a negative integer" : "an integer";
    case nlohmann::json::value_t::number_unsigned:
      return "an integer";
    default:
      return "an unexpected value";
  }
}
}  // namespace

void JsonNode::fail(std::string_view what) const {
  throw UserError((path_.empty() ? std::string("top level") : path_) + ": " + std::string(what));
}

void JsonNode::expected(std::string_view what) const {
  fail("expected " + std::string(what) + ", found " + a_type(value_));
}

const nlohmann::json& JsonNode::object() const {
  if (!value_.is_object()) expected("an object");
  return value_;
}

JsonNode JsonNode::member(const char* key) const {
  auto it = object().find(key);
  if (it == value_.end()) fail(std::string("member \"") + key + "\" is missing");
  return JsonNode(*it, path_.empty() ? std::string(key) : path_ + "." + key);
}

bool JsonNode::has(const char* key) const { return object().contains(key); }

size_t JsonNode::size() const {
  if (!value_.is_array()) expected("an array");
  return value_.size();
}

JsonNode JsonNode::element(size_t index) const {
  size();  // checks that this is an array
  return JsonNode(value_.at(index), path_ + "[" + std::to_string(index) + "]");
}

std::string JsonNode::string() const {
  if (!value_.is_string()) expected("a string");
  return sanitize_for_terminal(value_.get_ref<const std::string&>());
}

std::string JsonNode::one_of(std::initializer_list<std::string_view> allowed) const {
  std::string v = string();
  std::string list;
  for (auto a : allowed) {
    if (v == a) return v;
    list += (list.empty() ? "\"" : ", \"") + std::string(a) + "\"";
  }
  fail("unknown value \"" + v.substr(0, 40) + "\" (expected one of " + list + ")");
}

double JsonNode::amount() const {
  double v = number();
  if (v < 0) fail("expected 0 or more, found " + std::to_string(v));
  return v;
}

std::optional<double> JsonNode::amount_or_null() const {
  if (value_.is_null()) return std::nullopt;
  if (!value_.is_number()) expected("a number or null");
  return amount();
}

int JsonNode::integer_in(int lo, int hi) const {
  int v = integer();
  if (v < lo || v > hi)
    fail("expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", found " +
         std::to_string(v));
  return v;
}

std::optional<int> JsonNode::integer_in_or_null(int lo, int hi) const {
  if (value_.is_null()) return std::nullopt;
  return integer_in(lo, hi);
}

bool JsonNode::boolean() const {
  if (!value_.is_boolean()) expected("true or false");
  return value_.get<bool>();
}

double JsonNode::number() const {
  if (!value_.is_number()) expected("a number");
  double v = value_.get<double>();
  if (!std::isfinite(v)) fail("number out of range");
  return v;
}

uint64_t JsonNode::count() const {
  if (!value_.is_number_unsigned()) expected("a non-negative integer");
  return value_.get<uint64_t>();
}

int JsonNode::integer() const {
  if (!value_.is_number_integer()) expected("an integer");
  if (value_.is_number_unsigned()) {
    auto u = value_.get<uint64_t>();
    if (u > uint64_t(INT_MAX)) fail("integer " + std::to_string(u) + " is out of range");
    return int(u);
  }
  auto i = value_.get<int64_t>();
  if (i < INT_MIN || i > INT_MAX) fail("integer " + std::to_string(i) + " is out of range");
  return int(i);
}

std::optional<double> JsonNode::number_or_null() const {
  if (value_.is_null()) return std::nullopt;
  if (!value_.is_number()) expected("a number or null");
  return number();
}

std::optional<int> JsonNode::integer_or_null() const {
  if (value_.is_null()) return std::nullopt;
  if (!value_.is_number_integer()) expected("an integer or null");
  return integer();
}

}  // namespace roofprof::result
