#include "selftest/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace roofprof::selftest {

const char* to_string(SizeClass c) { return c == SizeClass::InLlc ? "in LLC" : "beyond LLC"; }

long largest_size(const sx_kernel& k, double bytes, double max_work) {
  long lo = 0, hi = k.granule;  // footprint and work grow with n: double, then bisect
  auto fits = [&](long n) { return k.footprint(double(n)) <= bytes && k.work(double(n)) <= max_work; };
  if (!fits(hi)) return 0;
  while (fits(hi) && hi < (1L << 40)) lo = hi, hi *= 2;
  while (hi - lo > k.granule) {
    long mid = lo + (hi - lo) / 2 / k.granule * k.granule;
    if (mid == lo) break;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

long smallest_size_above(const sx_kernel& k, double bytes) {
  long n = k.granule;
  while (k.footprint(double(n)) < bytes) n *= 2;
  long lo = n / 2, hi = n;  // footprint(lo) < bytes <= footprint(hi)
  while (hi - lo > k.granule) {
    long mid = lo + (hi - lo) / 2 / k.granule * k.granule;
    if (mid == lo) break;
    (k.footprint(double(mid)) < bytes ? lo : hi) = mid;
  }
  return hi;
}

Plan make_plan(bool full, uint64_t llc_bytes) {
  Plan p;
  p.llc_bytes = llc_bytes;
  p.calls = full ? 3 : 2;
  p.runs = full ? 3 : 1;
  // Inside: an eighth of the LLC (beyond L2 on most machines), at most 4 MiB in the quick set.
  // The work caps keep the emulated run (valgrind, tens of times slower) to seconds.
  double in_bytes = full ? double(llc_bytes) / 8 : std::min(double(llc_bytes) / 8, 4.0 * (1 << 20));
  double in_work = full ? 4e7 : 4e6;
  double beyond_bytes = full ? 2.0 * double(llc_bytes) : 1.5 * double(llc_bytes);
  double beyond_work = full ? 1e8 : 1e7;
  for (const char* state : {"cold", "warm"}) {
    for (int i = 0; i < SX_N_KERNELS; ++i) {
      const sx_kernel& k = sx_kernels[i];
      bool memory = k.read != nullptr;
      if (!memory && std::string(state) == "cold") continue;  // registers only: no cache state
      long n = largest_size(k, in_bytes, in_work);
      if (n > 0) p.cases.push_back(Case{&k, n, SizeClass::InLlc, state});
      if (!memory) continue;
      long big = smallest_size_above(k, beyond_bytes);
      if (k.work(double(big)) <= beyond_work)
        p.cases.push_back(Case{&k, big, SizeClass::BeyondLlc, state});
      else if (std::string(state) == "cold")
        p.notes.push_back(fmt::format("{} beyond the LLC (n = {}, {:.2g} flops a call) is not in the {} set", k.name,
                                      big, k.work(double(big)), full ? "full" : "quick"));
    }
  }
  return p;
}

}  // namespace roofprof::selftest
