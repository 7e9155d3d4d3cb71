#include "regions/spec.hpp"

#include <charconv>
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace roofprof::regions {

namespace {

bool parse_hex(std::string_view s, uint64_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  else return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}

// "lambda@...", "main::lambda@..." (symbolizer/linespec.hpp).
bool is_lambda_name(std::string_view text) {
  size_t at = text.find("lambda@");
  return at != std::string_view::npos && (at == 0 || (at >= 2 && text.substr(at - 2, 2) == "::"));
}

// A name longer than any symbol is refused before it is compared with every symbol.
void check_length(std::string_view text, const char* what) {
  if (text.size() > kMaxNameBytes)
    throw UserError(fmt::format("{} '{}' is longer than {} bytes, more than any symbol name: give a shorter name or "
                                "a glob such as 'prefix*'",
                                what, shorten_for_message(text, 60), kMaxNameBytes));
}

}  // namespace

Location parse_location(std::string_view text) {
  check_length(text, "location");
  Location loc;
  loc.text = std::string(text);
  if (text.empty()) throw UserError("empty location: give a symbol, FILE:LINE or an address like 0x401136");
  uint64_t addr = 0;
  if (parse_hex(text, addr)) {
    loc.kind = Location::Kind::Address;
    loc.address = addr;
    return loc;
  }
  // MODULE+0xOFFSET
  if (auto plus = text.rfind('+'); plus != std::string_view::npos && parse_hex(text.substr(plus + 1), addr)) {
    loc.kind = Location::Kind::Address;
    loc.module = std::string(text.substr(0, plus));
    loc.address = addr;
    return loc;
  }
  // A lambda by its enclosing function and line: "main::lambda@prog.cpp:42" is a name.
  if (is_lambda_name(text)) {
    loc.symbol = std::string(text);
    return loc;
  }
  // FILE:LINE (a C++ name contains "::", never a single ':' followed only by digits)
  if (auto colon = text.rfind(':'); colon != std::string_view::npos && colon > 0 && text[colon - 1] != ':' &&
                                    colon + 1 < text.size()) {
    std::string_view num = text.substr(colon + 1);
    unsigned line = 0;
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), line);
    if (ec == std::errc() && p == num.data() + num.size() && line > 0) {
      loc.kind = Location::Kind::FileLine;
      loc.file = std::string(text.substr(0, colon));
      loc.line = line;
      return loc;
    }
    throw UserError(fmt::format("bad location '{}': expected FILE:LINE with a positive line number",
                                shorten_for_message(text)));
  }
  loc.kind = Location::Kind::Symbol;
  loc.symbol = std::string(text);
  return loc;
}

RegionSpec parse_region(std::string_view text) {
  check_length(text, "--region");
  RegionSpec spec;
  spec.kind = RegionKind::Function;
  spec.text = std::string(text);
  spec.start = parse_location(text);
  if (spec.start.kind != Location::Kind::Symbol)
    throw UserError(fmt::format("--region '{}' must name a function; use --span NAME=START..STOP for "
                                "FILE:LINE or address ranges",
                                shorten_for_message(text)));
  spec.name = spec.start.symbol;
  return spec;
}

RegionSpec parse_span(std::string_view text) {
  RegionSpec spec;
  spec.kind = RegionKind::Span;
  spec.text = std::string(text);
  auto eq = text.find('=');
  auto dots = text.find("..", eq == std::string_view::npos ? 0 : eq);
  if (eq == std::string_view::npos || eq == 0 || dots == std::string_view::npos)
    throw UserError(fmt::format("bad --span '{}': expected NAME=START..STOP, e.g. solve=solver.c:120..solver.c:180",
                                shorten_for_message(text)));
  check_length(text.substr(0, eq), "--span name");
  spec.name = std::string(text.substr(0, eq));
  spec.start = parse_location(text.substr(eq + 1, dots - eq - 1));
  spec.stop = parse_location(text.substr(dots + 2));
  return spec;
}

}  // namespace roofprof::regions
