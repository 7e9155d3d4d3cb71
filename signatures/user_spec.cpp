#include "signatures/user_spec.hpp"

#include <cctype>
#include <charconv>

#include "common/error.hpp"

namespace roofprof::signatures {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "argI[:TYPE]" or "*argI[:TYPE]".
Param parse_param(std::string_view name, std::string_view arg, std::string_view spec) {
  auto bad = [&](const std::string& why) {
    return UserError("signature '" + std::string(spec) + "': " + why +
                     " (write PARAM=argI, argI:i32, *argI or *argI:i64)");
  };
  if (!is_identifier(name)) throw bad("bad parameter name '" + std::string(name) + "'");
  Param p;
  p.name = std::string(name);
  bool pointer = !arg.empty() && arg[0] == '*';
  if (pointer) arg.remove_prefix(1);
  std::string_view type;
  if (size_t colon = arg.find(':'); colon != std::string_view::npos) {
    type = arg.substr(colon + 1);
    arg = arg.substr(0, colon);
  }
  if (arg.substr(0, 3) != "arg") throw bad("'" + std::string(arg) + "' is not argI");
  auto digits = arg.substr(3);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p.arg);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || p.arg > 64)
    throw bad("'" + std::string(arg) + "' is not argI with I in 0..64");
  if (type.empty()) p.read = pointer ? Read::pointee_i32 : Read::value_i64;
  else if (type == "i32") p.read = pointer ? Read::pointee_i32 : Read::value_i32;
  else if (type == "i64") p.read = pointer ? Read::pointee_i64 : Read::value_i64;
  else throw bad("unknown type '" + std::string(type) + "'");
  return p;
}

}  // namespace

Signature parse_user_signature(std::string_view spec) {
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos || trim(spec.substr(0, colon)).empty())
    throw UserError("signature '" + std::string(spec) +
                    "': expected NAME:PARAM=ARG[,PARAM=ARG...], e.g. mysolve_:n=*arg0");
  Signature sig;
  sig.function = std::string(trim(spec.substr(0, colon)));
  std::string_view rest = spec.substr(colon + 1);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw UserError("signature '" + std::string(spec) + "': '" + std::string(item) +
                      "' is not PARAM=ARG");
    sig.params.push_back(parse_param(trim(item.substr(0, eq)), trim(item.substr(eq + 1)), spec));
    for (size_t i = 0; i + 1 < sig.params.size(); ++i)
      if (sig.params[i].name == sig.params.back().name)
        throw UserError("signature '" + std::string(spec) + "': parameter '" +
                        sig.params.back().name + "' twice");
  }
  if (sig.params.empty())
    throw UserError("signature '" + std::string(spec) + "': no parameters");
  return sig;
}

WorkFormula parse_work_option(std::string_view option) {
  size_t eq = option.find('=');
  if (eq == std::string_view::npos || trim(option.substr(0, eq)).empty() ||
      trim(option.substr(eq + 1)).empty())
    throw UserError("--work '" + std::string(option) +
                    "': expected NAME=EXPR, e.g. --work 'dgemm_=2*m*n*k'");
  return {std::string(trim(option.substr(0, eq))), Expr::parse(trim(option.substr(eq + 1)))};
}

}  // namespace roofprof::signatures
