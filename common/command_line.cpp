#include "common/command_line.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/strings.hpp"

namespace roofprof {

namespace {

const OptionShape* find_shape(std::string_view name, const std::vector<OptionShape>& shapes) {
  for (const auto& s : shapes)
    if (std::find(s.names.begin(), s.names.end(), name) != s.names.end()) return &s;
  return nullptr;
}

std::vector<std::string> all_names(const std::vector<OptionShape>& shapes) {
  std::vector<std::string> out;
  for (const auto& s : shapes)
    for (const auto& n : s.names)
      if (n.size() > 2) out.push_back(n);  // long names: "-x" is never a useful suggestion
  return out;
}

bool is_option_word(std::string_view a) { return a.size() > 1 && a[0] == '-' && a != "--"; }

}  // namespace

std::vector<std::string> did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                                      size_t count) {
  size_t limit = std::max<size_t>(2, word.size() / 3);
  std::vector<std::string> out;
  for (auto& c : closest(word, candidates, count)) {
    bool contains = !word.empty() && word.size() >= 3 && c.find(word) != std::string::npos;
    if (contains || edit_distance(word, c) <= limit) out.push_back(std::move(c));
  }
  return out;
}

std::string did_you_mean_phrase(const std::vector<std::string>& near) {
  if (near.empty()) return "";
  if (near.size() == 1) return fmt::format(" (did you mean {}?)", near[0]);
  std::string head;
  for (size_t i = 0; i + 1 < near.size(); ++i) head += (i ? ", " : "") + near[i];
  return fmt::format(" (did you mean {} or {}?)", head, near.back());
}

SplitCommandLine split_command_line(const std::vector<std::string>& args, const std::vector<OptionShape>& shapes,
                                    std::string_view command) {
  SplitCommandLine out;
  auto separator = std::find(args.begin(), args.end(), std::string("--"));
  size_t end_of_options = size_t(separator - args.begin());  // args.size() when there is no `--`
  size_t i = 0;
  while (i < args.size()) {
    const std::string& a = args[i];
    if (a == "--") {
      out.program.assign(args.begin() + i + 1, args.end());
      return out;
    }
    if (!is_option_word(a)) break;  // the program's name: the rest is the program's
    // --name=value, -xVALUE, --name VALUE, -x VALUE
    bool is_long = a.rfind("--", 0) == 0;
    std::string name = is_long ? a.substr(0, a.find('=')) : a.substr(0, 2);
    bool inline_value = is_long ? a.find('=') != std::string::npos : a.size() > 2;
    const OptionShape* shape = find_shape(name, shapes);
    if (!shape)
      throw UserError(fmt::format("unknown option '{}' for {}{}; options after the program name or after -- "
                                  "go to the program (see {} --help)",
                                  name, command, did_you_mean_phrase(did_you_mean(name, all_names(shapes))),
                                  command));
    if (!shape->takes_value && !is_long && inline_value)
      throw UserError(fmt::format("unknown option '{}' for {}: write each flag separately (see {} --help)", a,
                                  command, command));
    out.options.push_back(a);
    ++i;
    if (!shape->takes_value || inline_value) continue;
    if (i >= args.size() || args[i] == "--")
      throw UserError(fmt::format("option {} needs a value (see {} --help)", name, command));
    out.options.push_back(args[i++]);  // the value, even if it starts with '-'
    // More values of a multi-value option only up to an explicit `--`.
    if (shape->multi_value && separator != args.end())
      while (i < end_of_options && !is_option_word(args[i])) out.options.push_back(args[i++]);
  }
  out.program.assign(args.begin() + std::min(i, args.size()), args.end());
  return out;
}

}  // namespace roofprof
