#pragma once
// The limits every JSON reader shares (result files, survey results, --ceilings files and the
// ceilings cache): checked on the text before it is parsed, so that a hostile or broken file is
// a one-line error, never a crash or minutes of work.
#include <cstddef>
#include <string>
#include <string_view>

namespace roofprof {

// The largest JSON text read (a result of 10^5 groups is about 100 MB).
inline constexpr size_t kMaxJsonBytes = size_t(1) << 30;
// The deepest nesting of arrays and objects accepted: roofprof's files nest less than 10 levels.
inline constexpr size_t kMaxJsonDepth = 128;

// Throws UserError "ORIGIN: JSON nested deeper than 128 levels; ADVICE" when `text` opens more
// than kMaxJsonDepth arrays or objects at once (brackets inside strings do not count). Linear,
// no recursion.
void check_json_depth(std::string_view text, const std::string& origin, const std::string& advice);

}  // namespace roofprof
