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
#include "result/result.hpp"

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

// The roofs of view.threads threads; without it, of `ran_with` (the threads the regions ran on:
// ran_with_threads), or the nearest count measured below it (else the smallest), and with
// neither, of the most threads measured; `origin` says which and why. Throws UserError when
// view.threads names a thread count the ceilings do not have.
Roofs select_roofs(const ceilings::Ceilings& c, const View& view, ceilings::Precision precision,
                   std::optional<int> ran_with = std::nullopt);

// The most threads any region of `runs` ran on (threads with calls in its per-thread parts);
// null when no region says (files without per-thread parts, merged runs).
std::optional<int> ran_with_threads(const std::vector<const result::Run*>& runs);

// The ceilings to use: `file` when given (UserError if unreadable), else this machine's cache
// entry when present and readable; null otherwise. `origin` says which.
// Lines that fail the sanity check (ceilings/check.hpp) are flagged on reading, one warning each;
// a roof drawn from a flagged line says "FLAGGED" in its label.
struct FoundCeilings {
  ceilings::Ceilings ceilings;
  std::string origin;
  std::vector<std::string> warnings;
};
std::optional<FoundCeilings> find_ceilings(const std::optional<std::filesystem::path>& file);

}  // namespace roofprof::report
