// "Is it vectorised?": a region's flops by vector width and precision, as the table shows them.
#include "report/vector_share.hpp"

#include <gtest/gtest.h>

namespace roofprof::report {
namespace {

TEST(WidthShares, OneClassIsAllOfTheWork) {
  EXPECT_EQ(width_shares_text({{"dp_256", 4e9}, {"dp_128", 0}, {"dp_scalar", 0}, {"sp_256", 0}}), "dp 256b 100%");
  EXPECT_EQ(width_shares_text({{"sp_512", 1}}), "sp 512b 100%");
  EXPECT_EQ(width_shares_text({{"x87", 2000}}), "x87 100%");
}

TEST(WidthShares, LargestFirstPrecisionSaidOncePerRun) {
  // 62 / 30 / 8 of 100 in dp; an sp scalar tail of 0.4% rounds to 0 and is left out.
  EXPECT_EQ(width_shares_text({{"dp_scalar", 8}, {"dp_128", 30}, {"dp_256", 62}, {"sp_scalar", 0.4}}),
            "dp 256b 62%, 128b 30%, scalar 8%");
  EXPECT_EQ(width_shares_text({{"dp_scalar", 40}, {"sp_scalar", 60}}), "sp scalar 60%, dp scalar 40%");
  EXPECT_EQ(width_shares_text({{"dp_256", 50}, {"x87", 50}}), "dp 256b 50%, x87 50%");  // ties in class order
}

TEST(WidthShares, AtMostThreeThenAnEllipsis) {
  EXPECT_EQ(width_shares_text({{"dp_scalar", 10}, {"dp_128", 20}, {"dp_256", 30}, {"sp_256", 40}}),
            "sp 256b 40%, dp 256b 30%, 128b 20%, ...");
  EXPECT_EQ(width_shares_text({{"dp_scalar", 10}, {"dp_128", 20}, {"dp_256", 30}, {"sp_256", 40}}, 4),
            "sp 256b 40%, dp 256b 30%, 128b 20%, scalar 10%");
}

TEST(WidthShares, HardwareClassesByFlopWeightKeepTheirNames) {
  // perf's merged FP_ARITH umasks (docs/counters.md section 4): x4 = 128-bit single + 256-bit
  // double, a width only in bits per element; AMD's one class for both precisions.
  EXPECT_EQ(width_shares_text({{"fp_x4", 60}, {"fp_scalar", 30}, {"sp_512", 10}}), "fp x4 60%, scalar 30%, sp 512b 10%");
  EXPECT_EQ(width_shares_text({{"sp_dp", 5}}), "sp dp 100%");
}

TEST(WidthShares, NoFlopsIsUnknownNotZero) {
  EXPECT_EQ(width_shares_text({}), "-");
  EXPECT_EQ(width_shares_text({{"dp_256", 0}, {"dp_scalar", 0}}), "-");
  EXPECT_TRUE(width_shares({{"dp_256", 0}}).empty());
  auto s = width_shares({{"dp_128", 1}, {"dp_256", 3}});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].width, "256b");
  EXPECT_DOUBLE_EQ(s[0].share, 0.75);
  EXPECT_DOUBLE_EQ(s[1].share, 0.25);
}

}  // namespace
}  // namespace roofprof::report
