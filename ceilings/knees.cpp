#include "ceilings/knees.hpp"

#include <algorithm>
#include <cmath>

namespace roofprof::ceilings {

std::vector<uint64_t> find_knees(const std::vector<SizeRate>& sweep) {
  std::vector<uint64_t> knees;
  const size_t n = sweep.size();
  if (n == 0) return knees;
  size_t start = 0;  // the plateau's first point
  double best = sweep[0].gbytes_per_s;
  for (size_t j = 1; j < n; ++j) {
    const double floor = kDrop * best;
    if (sweep[j].gbytes_per_s >= floor) {
      best = std::max(best, sweep[j].gbytes_per_s);
      continue;
    }
    if (j + 1 >= n) break;                              // unconfirmed: the sweep ends here
    if (sweep[j + 1].gbytes_per_s >= floor) continue;  // one low point: noise
    size_t k = j;
    while (k + 1 < n && sweep[k + 1].gbytes_per_s < kSettle * sweep[k].gbytes_per_s) ++k;
    const double middle = std::sqrt(best * sweep[k].gbytes_per_s);
    uint64_t knee = sweep[start].bytes;
    for (size_t m = start; m <= k; ++m)
      if (sweep[m].gbytes_per_s >= middle) knee = sweep[m].bytes;
    knees.push_back(knee);
    start = k;
    best = sweep[k].gbytes_per_s;
    j = k;
  }
  return knees;
}

std::vector<MeasuredCache> match_knees(const std::vector<uint64_t>& knees, const std::vector<CacheInfo>& reported) {
  std::vector<MeasuredCache> out;
  for (const CacheInfo& c : reported) out.push_back({c.level, std::nullopt});
  size_t next = 0;  // the first level a knee may still match
  for (uint64_t knee : knees) {
    for (size_t i = next; i < reported.size(); ++i) {
      const uint64_t size = reported[i].size;
      const bool last = i + 1 == reported.size();
      const uint64_t low = last ? (i > 0 ? reported[i - 1].size + 1 : 0) : size / 4;
      if (knee >= low && knee <= 2 * size) {
        out[i].effective_bytes = knee;
        next = i + 1;
        break;
      }
    }
  }
  return out;
}

std::optional<uint64_t> measured_size(const CacheInfo& reported, const std::vector<MeasuredCache>& measured) {
  if (measured.empty() || reported.level != measured.back().level) return std::nullopt;  // the last level only
  for (const MeasuredCache& m : measured)
    if (m.level == reported.level && m.effective_bytes && double(*m.effective_bytes) < kMisreported * double(reported.size))
      return m.effective_bytes;
  return std::nullopt;
}

std::vector<CacheInfo> effective_caches(std::vector<CacheInfo> reported, const std::vector<MeasuredCache>& measured) {
  for (CacheInfo& c : reported)
    if (auto s = measured_size(c, measured)) c.size = *s;
  return reported;
}

std::vector<CacheInfo> simulated_levels(std::vector<CacheInfo> levels, const std::vector<MeasuredCache>& measured) {
  for (CacheInfo& c : levels) {
    const auto s = measured_size(c, measured);
    const uint64_t set = c.ways * c.line;
    if (s && set > 0 && *s >= set) c.size = *s / set * set;
  }
  return levels;
}

bool sweep_done(const std::vector<SizeRate>& sweep, const std::vector<CacheInfo>& reported) {
  if (sweep.empty() || reported.empty()) return false;
  const auto matched = match_knees(find_knees(sweep), reported);
  const auto& last = matched.back().effective_bytes;
  return last && sweep.back().bytes >= kPastLastKnee * *last;
}

}  // namespace roofprof::ceilings
