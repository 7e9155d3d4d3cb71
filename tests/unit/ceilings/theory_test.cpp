// Theoretical peaks for every core model an event set names (counters/events/*.txt),
// from the documented core widths (ceilings/theory.cpp), or null where the model does not give one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "ceilings/kernels.hpp"
#include "ceilings/theory.hpp"

namespace roofprof::ceilings {
namespace {

// Hybrid parts (P- and E-cores differ) and Clearwater Forest: no theoretical peak, said in
// docs/ceilings.md.
const std::set<std::string> kNotModelled = {"adl", "mtl", "arl", "arlh", "lnl", "ptl", "cwf"};

struct Signature {
  std::string set;
  unsigned family, model;
};

// Every (family, model) of every event set's "match cpu FAMILY MODEL|LO-HI ..." line.
std::vector<Signature> event_set_signatures() {
  std::vector<Signature> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SOURCE_DIR) + "/counters/events")) {
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("match cpu ", 0) != 0) continue;
      std::istringstream words(line.substr(10, line.find('#') - 10));
      std::string family, item;
      words >> family;
      while (words >> item) {
        const size_t dash = item.find('-');
        const unsigned lo = std::stoul(item.substr(0, dash), nullptr, 16);
        const unsigned hi = dash == std::string::npos ? lo : std::stoul(item.substr(dash + 1), nullptr, 16);
        for (unsigned m = lo; m <= hi; ++m)
          out.push_back({e.path().stem().string(), unsigned(std::stoul(family, nullptr, 16)), m});
      }
    }
  }
  return out;
}

TEST(CeilingsTheory, EveryEventSetModelHasAPeakOrIsSaidNotModelled) {
  const auto sigs = event_set_signatures();
  ASSERT_GT(sigs.size(), 100u);
  for (const auto& s : sigs) {
    const CpuSignature sig{s.family == 6 ? "GenuineIntel" : "AuthenticAMD", s.family, s.model, true};
    const auto m = core_model(sig);
    const std::string what = s.set + " model " + std::to_string(s.model);
    if (kNotModelled.count(s.set)) {
      EXPECT_FALSE(m.has_value()) << what;
      continue;
    }
    ASSERT_TRUE(m.has_value()) << what;
    // Every modelled core has a documented scalar add rate and, from Haswell and Zen on, an FMA rate.
    EXPECT_TRUE(theoretical_gflops(m, Isa::scalar, Precision::dp, Op::add, 1.0, 1).has_value()) << what;
    if (s.set != "snb") {
      EXPECT_TRUE(theoretical_gflops(m, Isa::avx2, Precision::dp, Op::fma, 1.0, 1)) << what;
    }
  }
}

// Per core and GHz: the documented rates, lanes x flops per lane x instructions per cycle.
TEST(CeilingsTheory, DocumentedWidths) {
  auto peak = [](unsigned family, unsigned model, Isa isa, Op op) {
    const CpuSignature sig{family == 6 ? "GenuineIntel" : "AuthenticAMD", family, model, true};
    return theoretical_gflops(core_model(sig), isa, Precision::dp, op, 1.0, 1);
  };
  // Emerald and Granite Rapids, Sapphire Rapids: two 512-bit FMA units: 8 lanes x 2 flops x 2.
  EXPECT_EQ(peak(6, 0xCF, Isa::avx512, Op::fma), 32.0);
  EXPECT_EQ(peak(6, 0xAD, Isa::avx512, Op::fma), 32.0);
  EXPECT_EQ(peak(6, 0x8F, Isa::avx2, Op::fma), 16.0);
  EXPECT_EQ(peak(6, 0x8F, Isa::avx512, Op::add_mul), std::nullopt);  // ports 0+1 and 1+5: not modelled
  // Skylake-SP: one or two 512-bit FMA units by part: 256-bit known, 512-bit null.
  EXPECT_EQ(peak(6, 0x55, Isa::avx2, Op::fma), 16.0);
  EXPECT_EQ(peak(6, 0x55, Isa::avx512, Op::fma), std::nullopt);
  // Ice Lake client: one 512-bit FMA (ports 0+1 fused).
  EXPECT_EQ(peak(6, 0x7E, Isa::avx512, Op::fma), 16.0);
  // Zen 4 splits AVX-512 in two; Zen 5 (server/desktop die) does not; Zen and Zen+ split AVX2.
  EXPECT_EQ(peak(0x19, 0x11, Isa::avx512, Op::fma), 16.0);
  EXPECT_EQ(peak(0x1A, 0x02, Isa::avx512, Op::fma), 32.0);
  EXPECT_EQ(peak(0x1A, 0x02, Isa::avx512, Op::add_mul), 32.0);
  EXPECT_EQ(peak(0x17, 0x01, Isa::avx2, Op::fma), 8.0);
  EXPECT_EQ(peak(0x17, 0x31, Isa::avx2, Op::fma), 16.0);
  // Sandy Bridge: no FMA; one add and one multiply per cycle.
  EXPECT_EQ(peak(6, 0x2A, Isa::avx2, Op::fma), std::nullopt);
  EXPECT_EQ(peak(6, 0x2A, Isa::sse, Op::add_mul), 4.0);
  // L1 loads: Skylake-SP two 64-byte loads per cycle despite its 256-bit FP datapath.
  const CpuSignature skx{"GenuineIntel", 6, 0x55, true};
  EXPECT_EQ(theoretical_gbytes_per_s(core_model(skx), Level::l1, Kind::load, Isa::avx512, 1.0, 1), 128.0);
}

}  // namespace
}  // namespace roofprof::ceilings

namespace roofprof::ceilings {
namespace {

// The FMA roof needs latency x pipes independent chains: 4-5 cycles x 2 FMA pipes on
// Zen 4/5, Golden Cove and Sapphire/Emerald Rapids, so at least 10 (12 with a margin) in every
// table, whether or not this CPU runs it (the tables are read, not run).
TEST(CeilingsKernels, EveryComputeKernelHasAtLeast12IndependentChains) {
  for (auto table : {compute_table_sse2, compute_table_fma128, compute_table_avx2, compute_table_avx512}) {
    int n = 0;
    const ComputeKernel* k = table(&n);
    ASSERT_GT(n, 0);
    for (int i = 0; i < n; ++i) EXPECT_GE(k[i].ops_per_iter, 12) << int(k[i].isa) << " " << int(k[i].op);
  }
}

}  // namespace
}  // namespace roofprof::ceilings
