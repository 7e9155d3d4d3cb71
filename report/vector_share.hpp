#pragma once
// "Is it vectorised?": a region's flops by vector width and precision, as shares of its W
// (result::Region::flops_by_class: dp_scalar, dp_128, dp_256, dp_512, sp_..., x87).
#include <map>
#include <string>
#include <vector>

namespace roofprof::report {

struct WidthShare {
  std::string precision;  // "dp", "sp", "x87"
  std::string width;      // "scalar", "128b", "256b", "512b" ("" for x87)
  double share = 0;       // of the region's flops, 0 .. 1
};

// Classes with flops, largest share first (ties in class order). Empty when no class has any.
std::vector<WidthShare> width_shares(const std::map<std::string, double>& flops_by_class);

// "dp 256b 100%", "dp 256b 62%, 128b 30%, scalar 8%", "sp scalar 60%, dp scalar 40%": the
// classes whose share rounds to at least 1%, at most `most` of them, then "..." when some with
// at least 1% are left out. "-" when no class has flops.
std::string width_shares_text(const std::map<std::string, double>& flops_by_class, size_t most = 3);

}  // namespace roofprof::report
