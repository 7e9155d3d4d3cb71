#include "symbolizer/demangle.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include "common/short_name.h"

namespace roofprof::symbolizer {

std::string demangle(std::string_view name) {
  if (name.size() < 3 || name.substr(0, 2) != "_Z") return std::string(name);
  std::string mangled(name);
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !out) return mangled;
  return std::string(out.get());
}

std::string_view strip_version(std::string_view name) {
  size_t at = name.find('@');
  return at == std::string_view::npos ? name : name.substr(0, at);
}

bool is_cold_fragment(std::string_view name) {
  return name.ends_with(".cold") || name.find(".cold.") != std::string_view::npos ||
         name.find("[clone .cold") != std::string_view::npos;
}

size_t skip_operator(std::string_view s, size_t i) { return rp_skip_operator(s.data(), s.size(), i); }

std::string short_name(std::string_view demangled) {
  std::string out(demangled.size() + 1, '\0');
  size_t n = rp_short_name(demangled.data(), demangled.size(), out.data(), out.size());
  if (n == static_cast<size_t>(-1)) return std::string(demangled);
  out.resize(n);
  return out;
}

}  // namespace roofprof::symbolizer
