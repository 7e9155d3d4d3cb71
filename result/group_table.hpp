#pragma once
// Calls of one region -> its `groups` (result.hpp). A probe mechanism that decodes the
// arguments of each call (signatures::decode) feeds every finished call here with its key,
// then stores groups() in the Region. Time statistics are exact (every duration is kept: 8
// bytes per call); counters, flops and bytes are sums.
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "result/result.hpp"

namespace roofprof::result {

struct GroupCall {
  double duration_s = 0;
  // Counter deltas in the order of the `events` given to GroupTable; NaN = not counted.
  std::span<const double> counters;
  std::optional<double> flops;          // null: not measured for this call
  std::map<std::string, Bytes> bytes;   // level -> read/write; a level absent: not measured
};

class GroupTable {
 public:
  explicit GroupTable(std::vector<std::string> events) : events_(std::move(events)) {}

  // One finished call whose arguments decoded to `key` / `params`; `expected_work` is the
  // signature's formula for one call (null when it has none).
  void add(const std::string& key, const std::map<std::string, double>& params,
           std::optional<double> expected_work, const GroupCall& call);

  // One Group per distinct key, in the order keys were first seen.
  std::vector<Group> groups() const;
  size_t size() const { return order_.size(); }

 private:
  struct Acc {
    Group group;                       // key, params, calls, time_s, sums
    std::vector<double> durations;
    std::vector<double> counter_sums;  // NaN once any call was not counted
    bool flops_known = true, work_known = true;
  };
  std::vector<std::string> events_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<Acc> order_;
};

}  // namespace roofprof::result
