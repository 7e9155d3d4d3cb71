#include <fmt/format.h>

#include "signatures/expr.hpp"
#include "signatures/signature.hpp"

namespace roofprof::signatures {
namespace {

std::optional<int64_t> read_param(const Param& p, ArgReader& reader) {
  auto arg = integer_arg(reader, p.arg);
  if (!arg) return std::nullopt;
  switch (p.read) {
    case Read::value_i64: return int64_t(*arg);
    case Read::value_i32: return int64_t(int32_t(uint32_t(*arg)));
    case Read::pointee_i32:
      if (auto v = reader.read_i32(*arg)) return int64_t(*v);
      return std::nullopt;
    case Read::pointee_i64:
      if (auto v = reader.read_u64(*arg)) return int64_t(*v);
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::map<std::string, double> Decoded::param_map() const {
  std::map<std::string, double> out;
  for (const auto& [name, v] : params) out[name] = double(v);
  return out;
}

std::string group_key(const std::vector<std::pair<std::string, int64_t>>& params) {
  std::string out;
  for (const auto& [name, v] : params) out += fmt::format("{}{}={}", out.empty() ? "" : ",", name, v);
  return out;
}

std::optional<Decoded> decode(const Signature& sig, ArgReader& reader) {
  Decoded d;
  for (const auto& p : sig.params) {
    auto v = read_param(p, reader);
    if (!v) return std::nullopt;
    d.params.emplace_back(p.name, *v);
  }
  d.key = group_key(d.params);
  if (!sig.work.empty()) {
    // Parsing per call costs ~1 us; the signatures are few, so keep one parsed copy each.
    thread_local std::map<std::string, Expr> parsed;
    auto it = parsed.find(sig.work);
    if (it == parsed.end()) it = parsed.emplace(sig.work, Expr::parse(sig.work)).first;
    d.expected_work = it->second.eval(d.param_map());
  }
  return d;
}

}  // namespace roofprof::signatures
