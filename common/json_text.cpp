#include "common/json_text.hpp"

#include "common/error.hpp"

namespace roofprof {

void check_json_depth(std::string_view text, const std::string& origin, const std::string& advice) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        throw UserError(origin + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels; " + advice);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace roofprof
