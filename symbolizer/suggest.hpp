#pragma once
// "Closest names" for a function name that matched nothing.
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::symbolizer {

// The `count` names closest to `pattern`, closest first. A name is as close as its closest
// trailing scopes ("PairLJCut::compute" for LAMMPS_NS::PairLJCut::compute: a plain name matches
// at any scope), compared case-insensitively (a case typo is a better hint than a different name),
// then by the exact-case distance, then alphabetically. A name containing the pattern
// (case-insensitively) counts as one edit away.
std::vector<std::string> closest_names(std::string_view pattern, const std::vector<std::string>& names,
                                       size_t count = 5);

}  // namespace roofprof::symbolizer
