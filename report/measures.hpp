#pragma once
// The roofline quantities of one region, or of one group of its calls: W, Q at the view's
// level, I = W/Q, P = W/T, the attainable bound min(pi, I*beta) and P as a fraction of it.
// Every quantity is null when something it needs was not measured.
#include <map>
#include <optional>
#include <string>

#include "report/roofs.hpp"
#include "report/view.hpp"
#include "result/result.hpp"

namespace roofprof::report {

// A region as a whole (group == nullptr) or one group of its calls.
struct Subject {
  const result::Region* region = nullptr;
  const result::Group* group = nullptr;

  uint64_t calls() const { return group ? group->calls : region->calls; }
  // Null when no clock timed the calls (an emulated MPI rank).
  std::optional<double> time_s() const { return group ? std::optional(group->time_s) : region->time_s; }
  const std::optional<result::Stats>& per_call() const {
    return group ? group->time_per_call_s : region->time_per_call_s;
  }
  const std::optional<double>& flops() const { return group ? group->flops : region->flops; }
  const std::map<std::string, result::Bytes>& bytes() const {
    return group ? group->bytes : region->bytes;
  }
  const std::map<std::string, std::optional<double>>& counters() const {
    return group ? group->counters : region->counters;
  }
  std::string group_key() const { return group ? group->key : ""; }
  // Are the calls alike (one group, or a region whose calls were not grouped)? Only then does
  // a per-call distribution of P make sense.
  bool homogeneous() const { return group || region->groups.empty(); }
};

struct Measures {
  std::optional<double> work;            // W, flops
  std::optional<double> traffic;         // Q, bytes at the level (read+write, read or write)
  std::optional<double> intensity;       // I = W / Q, flop/byte
  std::optional<double> gflops;          // P = W / T
  std::optional<double> flops_per_cycle; // W / cycles counted (summed over the scope's threads)
  // Y of the plot in the view's units: at the median call, and at the q3 and q1 call times
  // (homogeneous subjects with 2+ calls), else the total's P without bars. In cycles units
  // P / measured clock (y_converted), as the roofs are.
  std::optional<double> y, y_lo, y_hi;
  bool y_converted = false;
  std::optional<double> bound;           // min(pi, I*beta), in the view's units
  std::optional<double> fraction;        // P / bound (P in the view's units)
  std::string bound_by;                  // "memory" | "compute" | "" (unknown)
};

// Q of a subject at `level` for `rw`; null when a part is unknown.
std::optional<double> traffic(const std::map<std::string, result::Bytes>& bytes,
                              const std::string& level, Rw rw);

// `ghz`: the measured clock for per-cycle units (null: unknown, then no P in cycles).
Measures measure(const Subject& s, const View& view, const Roofs* roofs,
                 std::optional<double> ghz);

}  // namespace roofprof::report
