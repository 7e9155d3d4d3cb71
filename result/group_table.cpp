#include "result/group_table.hpp"

#include <cmath>

#include "result/quantiles.hpp"

namespace roofprof::result {
namespace {

void add_optional(std::optional<double>& sum, const std::optional<double>& v) {
  if (sum && v) *sum += *v;
  else sum.reset();
}

}  // namespace

void GroupTable::add(const std::string& key, const std::map<std::string, double>& params,
                     std::optional<double> expected_work, const GroupCall& call) {
  auto [it, inserted] = index_.try_emplace(key, order_.size());
  if (inserted) {
    Acc acc;
    acc.group.key = key;
    acc.group.params = params;
    acc.group.flops = 0.0;
    acc.group.expected_work = 0.0;
    acc.counter_sums.assign(events_.size(), 0.0);
    // Levels measured by the first call; a later call without one makes it unknown.
    for (const auto& [level, b] : call.bytes)
      acc.group.bytes[level] = Bytes{b.read ? std::optional(0.0) : std::nullopt,
                                     b.write ? std::optional(0.0) : std::nullopt};
    order_.push_back(std::move(acc));
  }
  Acc& acc = order_[it->second];
  Group& g = acc.group;
  ++g.calls;
  g.time_s += call.duration_s;
  acc.durations.push_back(call.duration_s);
  for (size_t i = 0; i < acc.counter_sums.size(); ++i)
    acc.counter_sums[i] += i < call.counters.size() ? call.counters[i] : NAN;
  add_optional(g.flops, call.flops);
  add_optional(g.expected_work, expected_work);
  for (auto& [level, sum] : g.bytes) {
    auto b = call.bytes.find(level);
    add_optional(sum.read, b == call.bytes.end() ? std::nullopt : b->second.read);
    add_optional(sum.write, b == call.bytes.end() ? std::nullopt : b->second.write);
  }
}

std::vector<Group> GroupTable::groups() const {
  std::vector<Group> out;
  out.reserve(order_.size());
  for (const Acc& acc : order_) {
    Group g = acc.group;
    std::vector<double> d = acc.durations;
    g.time_per_call_s = five_numbers(d);
    for (size_t i = 0; i < events_.size(); ++i)
      g.counters[events_[i]] =
          std::isnan(acc.counter_sums[i]) ? std::nullopt : std::optional(acc.counter_sums[i]);
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace roofprof::result
