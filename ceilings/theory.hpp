#pragma once
// Theoretical peaks: what the core could do per cycle (from a table of core models, identified
// by CPUID vendor/family/model) times the clock measured during the run times the physical cores
// used. CPUID gives the vector width and the core count but not the number of FP pipes, hence
// the table (sources in theory.cpp and docs/ceilings.md); a core not in it, or a rate its vendor
// does not document or that varies between parts of one model, has no theoretical peak (null),
// never a guess.
#include <optional>
#include <string>

#include "ceilings/machine.hpp"
#include "ceilings/types.hpp"

namespace roofprof::ceilings {

struct CoreModel {
  std::string name;
  int datapath_bits;  // wider instructions are split (e.g. Zen 4 runs AVX-512 as 2x256)
  // Full-datapath instructions per cycle and core; null where not documented (or no FMA unit).
  std::optional<double> fma_per_cycle;
  std::optional<double> add_per_cycle;
  std::optional<double> mul_per_cycle;
  std::optional<double> add_mul_per_cycle;  // adds + muls per cycle when half are adds
  int loads_per_cycle;                      // vector loads of up to datapath_bits
  double store_bytes_per_cycle;
  // Instructions wider than this have no theoretical peak: Skylake-SP, Cascade Lake and Ice
  // Lake-SP parts have one or two 512-bit FMA units depending on the part, which CPUID does not say.
  int known_bits = 512;
  // Widest load the load ports take at full rate; 0: datapath_bits (Skylake-SP and Ice Lake load
  // two 64-byte vectors per cycle with a 256-bit FP datapath).
  int load_bits = 0;
};

std::optional<CoreModel> core_model(const CpuSignature& sig);

std::optional<double> theoretical_gflops(const std::optional<CoreModel>& m, Isa isa,
                                         Precision p, Op op, double ghz, int cores);

// Only L1 load and store have a per-cycle limit in the core model; everything else is null.
std::optional<double> theoretical_gbytes_per_s(const std::optional<CoreModel>& m, Level level,
                                               Kind kind, Isa isa, double ghz, int cores);

}  // namespace roofprof::ceilings
