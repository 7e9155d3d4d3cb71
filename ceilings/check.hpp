#pragma once
// The sanity check of a set of ceilings (docs/ceilings.md): each line against the others and against its
// theoretical peak. A line that fails is remeasured once during `roofprof ceilings`, and flagged
// (ComputeCeiling::flagged, BandwidthCeiling::flagged) when it still fails; a file read later
// (the cache, report --ceilings) is checked again and its failing lines flagged. docs/ceilings.md,
// "Sanity check".
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

// A line is inconsistent when it is below kConsistent times a line it cannot be below, or above
// its theoretical peak by more than kAboveTheory: margins for the spread of samples on a shared
// machine, far below the differences a broken measurement shows (an AVX2 FMA line once measured
// at an eighth of the scalar one).
inline constexpr double kConsistent = 0.9;
inline constexpr double kAboveTheory = 1.05;

struct Inconsistency {
  bool compute = true;  // else bandwidth
  size_t index = 0;     // into Ceilings::compute or Ceilings::bandwidth
  std::string why;      // "below scalar dp fma on 2 threads (22.7 GFlop/s)"
};

// The lines that fail, one reason each (the first found), compute first. Rules, each within the
// margins above: a compute line is not below a narrower ISA's line of the same precision, op and
// threads, nor below the same line on fewer threads, and an fma line not below any op of the same
// or a narrower ISA, precision and threads (an FMA is two flops in one pipe slot; every modelled
// core has at least as many FMA slots as add and mul slots together); a bandwidth line (not nt_store, which
// bypasses the caches) is not above the same kind's line at a nearer level, and not below the same
// line on fewer threads; nothing is above its theoretical peak.
std::vector<Inconsistency> inconsistencies(const Ceilings& c);

// Sets the `flagged` reason of every inconsistent line not flagged yet. Returns one line per newly
// flagged one ("avx2 dp fma, 2 threads: below ...").
std::vector<std::string> flag_inconsistent(Ceilings& c);

// "avx2 dp fma, 2 threads: below ..." for every flagged line, compute first.
std::vector<std::string> flagged_lines(const Ceilings& c);

// How to measure a line again (the same isa, precision, op, threads; the same level, kind,
// threads).
struct Remeasure {
  std::function<ComputeCeiling(const ComputeCeiling&)> compute;
  std::function<BandwidthCeiling(const BandwidthCeiling&)> bandwidth;
};

// Measures each inconsistent line once more (replacing it), then flags what still fails
// (flag_inconsistent's lines).
std::vector<std::string> remeasure_and_flag(Ceilings& c, const Remeasure& again);

// "avx2 dp fma, 2 threads", "L3 load, 1 thread": a line as the check names it.
std::string describe(const ComputeCeiling& x);
std::string describe(const BandwidthCeiling& x);

}  // namespace roofprof::ceilings
