#include "ceilings/frequency.hpp"

namespace roofprof::ceilings {

double measure_ghz(const Timer& timer, uint64_t adds) {
  uint64_t iters = adds / 32 + 1;
  uint64_t x = 0;
  const uint64_t one = 1;
  const uint64_t t0 = timer.start();
#define ROOFPROF_ADD4 "add %[one], %[x]\n\tadd %[one], %[x]\n\tadd %[one], %[x]\n\tadd %[one], %[x]\n\t"
  asm volatile(
      "1:\n\t" ROOFPROF_ADD4 ROOFPROF_ADD4 ROOFPROF_ADD4 ROOFPROF_ADD4 ROOFPROF_ADD4 ROOFPROF_ADD4
          ROOFPROF_ADD4 ROOFPROF_ADD4
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      : [x] "+r"(x), [n] "+r"(iters)
      : [one] "r"(one)
      : "cc");
#undef ROOFPROF_ADD4
  const uint64_t t1 = timer.stop();
  const double ns = timer.seconds(t1 - t0) * 1e9;
  return double(x) / ns;
}

double measure_ghz_best(const Timer& timer, int probes, uint64_t adds) {
  double best = 0;
  for (int i = 0; i < probes; ++i) {
    const double ghz = measure_ghz(timer, adds);
    if (ghz > best) best = ghz;
  }
  return best;
}

}  // namespace roofprof::ceilings
