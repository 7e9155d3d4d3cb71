#include "symbolizer/line_sites.hpp"

#include <fmt/format.h>

#include "common/strings.hpp"
#include "symbolizer/linespec.hpp"

namespace roofprof::symbolizer {

namespace {

std::set<std::string> functions_holding(const ElfFile& module, const std::vector<uint64_t>& addresses) {
  std::set<std::string> out;
  for (uint64_t a : addresses)
    if (const Symbol* s = module.function_at(a)) out.insert(display_name(*s));
  return out;
}

// The last line before `line` in `file` with code, 0 when none.
unsigned previous_line_with_code(const ElfFile& module, std::string_view file, unsigned line) {
  for (unsigned l = line; l-- > 1;) {
    unsigned used = 0;
    if (module.line_addresses(file, l, &used).empty()) return 0;
    if (used < line) return used;
    // Lines l..line have no code: keep looking further up.
  }
  return 0;
}

}  // namespace

LineSites resolve_line(const ElfFile& module, std::string_view file, unsigned line) {
  LineSites out;
  out.addresses = module.line_addresses(file, line, &out.used_line);
  if (out.addresses.empty()) return out;
  out.functions = functions_holding(module, out.addresses);
  if (out.used_line == line) return out;
  const std::string where = fmt::format("{}:{}", file, line);
  unsigned before = previous_line_with_code(module, file, line);
  std::set<std::string> enclosing;
  if (before) enclosing = functions_holding(module, module.line_addresses(file, before));
  std::vector<uint64_t> kept;
  std::set<std::string> common;
  for (uint64_t a : out.addresses) {
    const Symbol* s = module.function_at(a);
    if (s && enclosing.count(display_name(*s))) {
      kept.push_back(a);
      common.insert(display_name(*s));
    }
  }
  if (kept.empty()) {
    out.error = enclosing.empty()
                    ? fmt::format("{} has no code and is in no function; the next line with code, {}, is in {}: "
                                  "give a line inside the function you mean",
                                  where, out.used_line, fmt::join(out.functions, ", "))
                    : fmt::format("{} has no code and the next line with code, {}, is in {}, not in {}: give a line "
                                  "with code inside {}",
                                  where, out.used_line, fmt::join(out.functions, ", "), fmt::join(enclosing, ", "),
                                  fmt::join(enclosing, ", "));
    out.addresses.clear();
    return out;
  }
  out.addresses = std::move(kept);
  out.functions = std::move(common);
  return out;
}

}  // namespace roofprof::symbolizer
