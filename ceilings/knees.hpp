#pragma once
// The measured cache hierarchy: capacity knees in a one-thread load-bandwidth sweep over
// working-set sizes, matched to the reported cache levels. VMs report their host's whole socket
// as the last level (508 MB on the development VM, 480 MiB on the Intel one, 300 MB on a 16-core
// VM measured at DRAM's latency at 37.5 MB): the knee is the size that level really holds for
// one thread. docs/ceilings.md, "The measured hierarchy".
#include <cstdint>
#include <optional>
#include <vector>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

// One point of a sweep: a working set and the best load bandwidth measured over it (the best
// sample: time taken away by other processes only lowers a rate).
struct SizeRate {
  uint64_t bytes;
  double gbytes_per_s;
};

// A point is a drop when its rate is below kDrop of the plateau's best rate so far, and the
// point after it is too (one low point alone is noise). The drop settles where the rate stops
// falling by more than kSettle per point; the knee is the largest size, from the plateau's start
// to where the drop settled, whose rate is at least the geometric mean of the plateau's best and
// the settled rate (the middle of the fall). Then a new plateau starts at the settled point.
inline constexpr double kDrop = 0.7;
inline constexpr double kSettle = 0.9;

// The knees of `sweep` (sizes ascending), smallest first.
std::vector<uint64_t> find_knees(const std::vector<SizeRate>& sweep);

// The knees matched to `reported` (L1 first), in order: a knee belongs to the first level not yet
// matched (after the last matched one) that it fits. It fits a level below the last if it lies
// within [size / 4, 2 * size] of the reported size (L1 and L2 are private and reported right);
// the last level if it lies above the level below's reported size and up to twice its own (a VM
// reports too much, never too little). A knee that fits no level is left out. One entry per
// reported level; effective_bytes null where no knee matched.
std::vector<MeasuredCache> match_knees(const std::vector<uint64_t>& knees, const std::vector<CacheInfo>& reported);

// A measured size replaces the reported one when the level is the last one reported and the
// knee is below kMisreported of it: a knee sits in the middle of the fall, below the capacity of
// a cache whose replacement is not strict LRU, and the sweep's sizes are 2^(1/4) apart; half is
// far outside both. Levels below the last are private and reported right: their knees are
// recorded, never used (a knee of noise on a loaded machine must not shrink the L1).
inline constexpr double kMisreported = 0.5;

// The level's size as the machine measured it, when it is known and differs from the reported
// one as above; null otherwise.
std::optional<uint64_t> measured_size(const CacheInfo& reported, const std::vector<MeasuredCache>& measured);

// `reported` with each level's size replaced by its measured_size() where there is one.
std::vector<CacheInfo> effective_caches(std::vector<CacheInfo> reported, const std::vector<MeasuredCache>& measured);

// The emulator's levels (sizes, ways and lines known) resized to `measured` as effective_caches
// does, each resized level rounded down to a multiple of ways * line (whole sets); a level that
// would round to nothing keeps its size. Equal to `levels` when nothing was measured to differ.
std::vector<CacheInfo> simulated_levels(std::vector<CacheInfo> levels, const std::vector<MeasuredCache>& measured);

// Whether `sweep` (ascending) has gone far enough: the last reported level has a knee and the
// last point is at least kPastLastKnee times it.
inline constexpr uint64_t kPastLastKnee = 4;
bool sweep_done(const std::vector<SizeRate>& sweep, const std::vector<CacheInfo>& reported);

}  // namespace roofprof::ceilings
