#pragma once
// The roofs a report draws and bounds with, chosen from a ceilings file (roofprof ceilings):
// compute roofs per ISA and thread count for the data's precision, bandwidth roofs per memory
// level for the traffic shown (read + write, read only, write only), measured and theoretical.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "ceilings/types.hpp"
#include "report/view.hpp"

namespace roofprof::report {

struct Roof {
  bool compute = true;      // else bandwidth
  std::string label;        // "avx2 fma, 2 threads", "DRAM triad, 2 threads"
  std::string level;        // bandwidth roofs: "L1" .. "DRAM"
  double value = 0;         // GFlop/s or GB/s; flop/cycle or byte/cycle in cycles units
  bool theoretical = false; // from the core model, not measured
  bool primary = false;     // used for the bound: best measured compute, the view's level
};

struct Roofs {
  std::vector<Roof> roofs;          // compute (highest first), then bandwidth (L1 .. DRAM)
  std::optional<double> pi, beta;   // the bound's roofs; null when not measured
  std::string perf_unit = "GFlop/s";
  std::string bandwidth_unit = "GB/s";
  int threads = 0;
  std::string precision;            // "dp" | "sp"
  std::string origin;               // one line: where the roofs come from
};

// Throws UserError when view.threads names a thread count the ceilings do not have.
Roofs select_roofs(const ceilings::Ceilings& c, const View& view, ceilings::Precision precision);

// The ceilings to use: `file` when given (UserError if unreadable), else this machine's cache
// entry when present and readable; null otherwise. `origin` says which.
struct FoundCeilings {
  ceilings::Ceilings ceilings;
  std::string origin;
};
std::optional<FoundCeilings> find_ceilings(const std::optional<std::filesystem::path>& file);

}  // namespace roofprof::report
