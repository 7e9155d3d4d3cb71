// Event-set encodings through libpfm4 (inactive PMUs encoded with LIBPFM_ENCODE_INACTIVE=1),
// checked against the vendors' event tables. perf config for a core event = umask << 8 | event.
//   Intel: SDM Vol. 3B, "Performance Monitoring Events" chapter; Intel perfmon event lists
//   (github.com/intel/perfmon, mirrored in Linux tools/perf/pmu-events/arch/x86/*).
//   AMD: Processor Programming References #54945 (17h M01h), #55803 (17h M31h),
//   #55898 (19h M01h), #55901 (19h M11h), section "Core Performance Monitor Counters".
#include "counters/event_encoding.hpp"

#include <linux/perf_event.h>

#include <gtest/gtest.h>
#include <map>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {
namespace {

struct Encoded {
  std::map<std::string, uint64_t> config;  // id -> config (first line of the id)
  std::map<std::string, uint32_t> type;
  std::map<std::string, std::vector<std::string>> pmus;  // id -> sysfs PMUs (uncore boxes)
  std::map<std::string, int> cost;
};

Encoded encode(const std::string& model) {
  const EventSet* set = find_event_set(model);
  EXPECT_NE(set, nullptr) << model;
  if (!set) return {};
  PfmLibrary pfm(true);
  Encoded out;
  for (const EncodedEvent& e : encode_event_set(*set, pfm, qualifying_pmu(*set, {}))) {
    out.config.emplace(e.line.id, e.config);
    out.type.emplace(e.line.id, e.type);
    out.pmus[e.line.id].push_back(e.line.perf_pmu);
    out.cost.emplace(e.line.id, e.line.cost);
  }
  return out;
}

std::map<std::string, double> weights(const std::string& model, const std::string& formula) {
  std::map<std::string, double> out;
  const Formula* f = find_event_set(model)->formula(formula);
  if (f)
    for (const Term& t : f->terms) out[t.id] = t.weight;
  return out;
}

TEST(Encoding, IssueFactsForLibpfm413) {
  PfmLibrary pfm(true);
  EXPECT_EQ(pfm.encode_perf("skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE").config, 0x1c7u);
  EXPECT_EQ(pfm.encode_perf("skx::FP_ARITH_INST_RETIRED:SCALAR_DOUBLE").type, PERF_TYPE_RAW);
  EXPECT_EQ(pfm.encode_perf("amd64_fam19h_zen3::RETIRED_SSE_AVX_FLOPS:MAC_FLOPS").config, 0x803u);
  EXPECT_EQ(pfm.encode_code("skx_unc_imc0::UNC_M_CAS_COUNT:RD"), 0x304u);
  EXPECT_THROW(pfm.encode_perf("skx::NO_SUCH_EVENT"), UserError);
}

TEST(Encoding, SandyBridge) {
  // SDM: FP_COMP_OPS_EXE = 0x10 (umask 0x80 SSE_SCALAR_DOUBLE, 0x10 SSE_FP_PACKED_DOUBLE,
  // 0x20 SSE_FP_SCALAR_SINGLE, 0x40 SSE_PACKED_SINGLE); SIMD_FP_256 = 0x11 (0x01 PS, 0x02 PD).
  const Encoded e = encode("snb");
  EXPECT_EQ(e.config.at("dp_scalar"), 0x8010u);
  EXPECT_EQ(e.config.at("dp_128"), 0x1010u);
  EXPECT_EQ(e.config.at("sp_scalar"), 0x2010u);
  EXPECT_EQ(e.config.at("sp_128"), 0x4010u);
  EXPECT_EQ(e.config.at("dp_256"), 0x0211u);
  EXPECT_EQ(e.config.at("sp_256"), 0x0111u);
  EXPECT_EQ(e.config.at("cycles"), 0x3cu);        // architectural UnHalted Core Cycles
  EXPECT_EQ(e.config.at("instructions"), 0xc0u);  // architectural Instructions Retired
  EXPECT_EQ(e.config.at("ref_cycles"), 0x300u);   // fixed counter 2 pseudo-encoding
  EXPECT_EQ(e.config.at("l2_lines_in"), 0x07f1u);  // L2_LINES_IN.ANY
  EXPECT_EQ(e.config.at("l2_lines_out"), 0x0af2u); // L2_LINES_OUT.DIRTY_ANY
  // Xeon E5 v2 uncore guide: UNC_M_CAS_COUNT = 0x04, RD umask 0x03, WR umask 0x0C.
  EXPECT_EQ(e.config.at("cas_rd"), 0x0304u);
  EXPECT_EQ(e.config.at("cas_wr"), 0x0c04u);
  EXPECT_EQ(e.pmus.at("cas_rd").size(), 9u);  // 8 server channels + the client IMC
  EXPECT_EQ(e.type.at("dp_scalar"), PERF_TYPE_RAW);
  EXPECT_EQ(weights("snb", "W"), (std::map<std::string, double>{{"dp_scalar", 1}, {"dp_128", 2},
                                   {"dp_256", 4}, {"sp_scalar", 1}, {"sp_128", 4}, {"sp_256", 8}}));
}

TEST(Encoding, HaswellHasNoFpCounters) {
  const EventSet* set = find_event_set("hsw");
  ASSERT_NE(set, nullptr);
  ASSERT_TRUE(set->fp_missing.has_value());
  EXPECT_NE(set->fp_missing->find("no floating-point arithmetic counters"), std::string::npos);
  EXPECT_EQ(set->formula("W"), nullptr);
  const Encoded e = encode("hsw");
  EXPECT_EQ(e.config.count("dp_scalar"), 0u);
  EXPECT_EQ(e.config.at("l2_lines_in"), 0x07f1u);   // L2_LINES_IN.ALL
  EXPECT_EQ(e.config.at("l2_lines_out"), 0x40f0u);  // L2_TRANS.L2_WB (every L2 writeback)
  EXPECT_EQ(e.config.at("cas_rd"), 0x0304u);        // Xeon E5 v3 uncore: CAS_COUNT.RD
  EXPECT_EQ(e.config.at("cas_wr"), 0x0c04u);
}

TEST(Encoding, SkylakeServer) {
  // SDM / perfmon SKX: FP_ARITH_INST_RETIRED = 0xC7, umasks 0x01 SD, 0x02 SS, 0x04 128D,
  // 0x08 128S, 0x10 256D, 0x20 256S, 0x40 512D, 0x80 512S; merged by flop weight as Intel's
  // FLOPc metric: SD|SS x1, 128D x2, 128S|256D x4, 256S|512D x8, 512S x16. libpfm4 encodes
  // the combined umasks to the same configs.
  const Encoded e = encode("skx");
  EXPECT_EQ(e.config.at("fp_scalar"), 0x03c7u);
  EXPECT_EQ(e.config.at("dp_128"), 0x04c7u);
  EXPECT_EQ(e.config.at("fp_x4"), 0x18c7u);
  EXPECT_EQ(e.config.at("fp_x8"), 0x60c7u);
  EXPECT_EQ(e.config.at("sp_512"), 0x80c7u);
  EXPECT_EQ(e.config.at("l2_lines_in"), 0x1ff1u);   // L2_LINES_IN.ALL
  EXPECT_EQ(e.config.at("l2_lines_out"), 0x02f2u);  // L2_LINES_OUT.NON_SILENT
  // SKX uncore: UNC_M_CAS_COUNT = 0x04, RD 0x03, WR 0x0C; six channels per socket.
  EXPECT_EQ(e.config.at("cas_rd"), 0x0304u);
  EXPECT_EQ(e.config.at("cas_wr"), 0x0c04u);
  EXPECT_EQ(e.pmus.at("cas_wr"), (std::vector<std::string>{"uncore_imc_0", "uncore_imc_1",
                                   "uncore_imc_2", "uncore_imc_3", "uncore_imc_4", "uncore_imc_5"}));
  EXPECT_EQ(weights("skx", "W"), (std::map<std::string, double>{{"fp_scalar", 1}, {"dp_128", 2}, {"fp_x4", 4},
                                                                 {"fp_x8", 8}, {"sp_512", 16}}));
  EXPECT_EQ(weights("skx", "Q.read"), (std::map<std::string, double>{{"cas_rd", 64}}));
}

TEST(Encoding, IceLakeServer) {
  const Encoded e = encode("icx");
  EXPECT_EQ(e.config.at("fp_scalar"), 0x03c7u);
  EXPECT_EQ(e.config.at("fp_x8"), 0x60c7u);
  EXPECT_EQ(e.config.at("sp_512"), 0x80c7u);
  EXPECT_EQ(e.config.at("l2_lines_in"), 0x1ff1u);
  // ICX uncore (perfmon icelakex uncore-memory): UNC_M_CAS_COUNT.RD 0x04/0x0F, .WR 0x04/0x30.
  EXPECT_EQ(e.config.at("cas_rd"), 0x0f04u);
  EXPECT_EQ(e.config.at("cas_wr"), 0x3004u);
  EXPECT_EQ(e.pmus.at("cas_rd").size(), 12u);
  EXPECT_EQ(find_event_set("icx")->counter_limit(""), 8);
}

TEST(Encoding, SapphireRapids) {
  const Encoded e = encode("spr");
  EXPECT_EQ(e.config.at("fp_x4"), 0x18c7u);
  EXPECT_EQ(e.config.at("sp_512"), 0x80c7u);
  // FP16 (FP_ARITH_INST_RETIRED2, 0xCF) is left out: five more weights would not fit beside W's five.
  EXPECT_EQ(e.config.count("hp_scalar"), 0u);
  EXPECT_EQ(e.config.at("l2_lines_in"), 0x1f25u);   // L2_LINES_IN.ALL moved to 0x25 on SPR
  EXPECT_EQ(e.config.at("l2_lines_out"), 0x0226u);  // L2_LINES_OUT.NON_SILENT at 0x26
  // perfmon SPR uncore-memory: UNC_M_CAS_COUNT.RD 0x05/0xCF, .WR 0x05/0xF0.
  EXPECT_EQ(e.config.at("cas_rd"), 0xcf05u);
  EXPECT_EQ(e.config.at("cas_wr"), 0xf005u);
  EXPECT_EQ(weights("spr", "W"), (std::map<std::string, double>{{"fp_scalar", 1}, {"dp_128", 2}, {"fp_x4", 4},
                                                                 {"fp_x8", 8}, {"sp_512", 16}}));
}

TEST(Encoding, Zen2) {
  // PPR 17h M31h: PMCx003 Retired SSE/AVX Flops, umask 0x0F = all; PMCx076 cycles not in halt;
  // PMCx0C0 retired instructions; PMCx043 demand fills, umask 0x08 local DRAM | 0x40 remote DRAM.
  const Encoded e = encode("zen2");
  EXPECT_EQ(e.config.at("sp_dp"), 0x0f03u);
  EXPECT_EQ(e.cost.at("sp_dp"), 2);  // paired with the merge event
  EXPECT_EQ(e.config.at("cycles"), 0x76u);
  EXPECT_EQ(e.config.at("instructions"), 0xc0u);
  EXPECT_EQ(e.config.at("dram_fills"), 0x4843u);
  EXPECT_EQ(weights("zen2", "W"), (std::map<std::string, double>{{"sp_dp", 1}}));
  EXPECT_EQ(find_event_set("zen2")->formula("Q.read"), nullptr);  // no uncore: approximation only
  EXPECT_NE(find_event_set("zen2")->formula("Q.read", true), nullptr);
}

TEST(Encoding, Zen3) {
  // PPR 19h M01h: PMCx003 umask 0x0F; MacFlops umask 0x08 (0x803);
  // PMCx044 any fills, umask 0x08 MemIoLcl | 0x40 MemIoRmt.
  const Encoded e = encode("zen3");
  EXPECT_EQ(e.config.at("sp_dp"), 0x0f03u);
  EXPECT_EQ(e.cost.at("sp_dp"), 2);
  EXPECT_EQ(e.config.at("dram_fills"), 0x4844u);
}

TEST(Encoding, Zen4) {
  // PPR 19h M11h: PMCx003 umasks 0x01 AddSub, 0x02 Mult, 0x04 Div, 0x08 Mac, 0x10 BFloat16 Mac:
  // all five in one event (perf amdzen4 fp_ret_sse_avx_ops.all = 0x1f), one counter pair.
  const Encoded e = encode("zen4");
  EXPECT_EQ(e.config.at("sp_dp"), 0x1f03u);
  EXPECT_EQ(e.cost.at("sp_dp"), 2);
  EXPECT_EQ(e.config.count("bf16"), 0u);
  EXPECT_EQ(e.config.at("dram_fills"), 0x4844u);
  EXPECT_EQ(weights("zen4", "W"), (std::map<std::string, double>{{"sp_dp", 1}}));
}

TEST(Encoding, Zen1SplitsPrecision) {
  // PPR 17h M01h: PMCx003 umasks 0x80/0x40/0x20/0x10 DP MultAdd/Div/Mult/AddSub, 0x0F SP.
  const Encoded e = encode("zen1");
  EXPECT_EQ(e.config.at("dp"), 0xf003u);
  EXPECT_EQ(e.config.at("sp"), 0x0f03u);
}

TEST(Encoding, AlderLakeIsRawOnTwoPmus) {
  const Encoded e = encode("adl");
  EXPECT_EQ(e.config.at("fp_x4"), 0x18c7u);
  EXPECT_EQ(e.type.at("fp_x4"), 0u);  // resolved from /sys/bus/event_source/devices/cpu_core/type
  EXPECT_EQ(e.pmus.at("fp_x4"), std::vector<std::string>{"cpu_core"});
  EXPECT_EQ(e.pmus.at("cycles_atom"), std::vector<std::string>{"cpu_atom"});
  EXPECT_EQ(find_event_set("adl")->counter_limit("cpu_core"), 8);
  EXPECT_EQ(find_event_set("adl")->counter_limit("cpu_atom"), 6);
}

}  // namespace
}  // namespace roofprof::counters

namespace roofprof::counters {
namespace {

// Every raw fallback (used when the installed libpfm4 cannot encode a name, e.g. a set chosen by
// CPUID on a part libpfm4 4.13 does not detect) is the config libpfm4 gives for the same name
// wherever libpfm4 has the table: the two encodings of one line cannot disagree.
TEST(Encoding, RawFallbacksAgreeWithLibpfm) {
  PfmLibrary pfm(true);
  int checked = 0;
  for (const EventSet& set : event_catalog()) {
    const std::string pmu = qualifying_pmu(set, {});
    for (const EventLine& line : set.events) {
      if (line.raw_fallback.empty() || pmu.empty()) continue;
      uint64_t libpfm = 0;
      try {
        libpfm = pfm.encode_perf(pmu + "::" + line.encoding).config;
      } catch (const UserError&) {
        continue;  // no table in this libpfm4 (checked on the CPU's own version elsewhere)
      }
      EXPECT_EQ(libpfm, std::strtoull(line.raw_fallback.c_str() + 4, nullptr, 16))
          << set.source << ":" << line.line << " " << line.encoding;
      ++checked;
    }
  }
  EXPECT_GT(checked, 70);  // libpfm4 4.13 has the tables of snb..spr and zen1..zen4 (79 lines with merged umasks)
}

}  // namespace
}  // namespace roofprof::counters
