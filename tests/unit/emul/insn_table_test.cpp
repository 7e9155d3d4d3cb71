// The counting rule of each instruction class, one function per instruction
// (tests/fixtures/emul/insn_table.S). Every function ends with ret: 1 instruction and
// 8 bytes read more than the table's body.
#include <gtest/gtest.h>

#include <map>

#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

struct Expect {
  const char* fn;
  int instructions;                   // body only
  std::map<std::string, double> fp;   // non-zero flop counters
  double read = 0, written = 0;       // body only
};

const std::vector<Expect> kTable = {
    {"t_addsd", 1, {{"flops_dp_scalar", 1}}},
    {"t_addss", 1, {{"flops_sp_scalar", 1}}},
    {"t_addpd", 1, {{"flops_dp_128", 2}}},
    {"t_mulps", 1, {{"flops_sp_128", 4}}},
    {"t_vaddpd_ymm", 1, {{"flops_dp_256", 4}}},
    {"t_vaddps_ymm", 1, {{"flops_sp_256", 8}}},
    // FMA: 2 flops per lane; VEX splits packed FMA into scalar ops, classed by total width.
    {"t_vfmadd231sd", 1, {{"flops_dp_scalar", 2}}},
    {"t_vfmadd231ss", 1, {{"flops_sp_scalar", 2}}},
    {"t_vfmadd231pd_xmm", 1, {{"flops_dp_128", 4}}},
    {"t_vfmadd231pd_ymm", 1, {{"flops_dp_256", 8}}},
    {"t_vfmadd231ps_xmm", 1, {{"flops_sp_128", 8}}},
    {"t_vfmadd231ps_ymm", 1, {{"flops_sp_256", 16}}},
    {"t_vfnmsub231pd_ymm", 1, {{"flops_dp_256", 8}}},
    {"t_vfmaddsub231pd_ymm", 1, {{"flops_dp_256", 8}}},
    // divide and square root: 1 per lane
    {"t_divpd", 1, {{"flops_dp_128", 2}}},
    {"t_vdivps_ymm", 1, {{"flops_sp_256", 8}}},
    {"t_sqrtsd", 1, {{"flops_dp_scalar", 1}}},
    {"t_vsqrtpd_ymm", 1, {{"flops_dp_256", 4}}},
    // min/max and reciprocal estimates: 1 per lane (as FP_ARITH_INST_RETIRED)
    {"t_minpd", 1, {{"flops_dp_128", 2}}},
    {"t_maxss", 1, {{"flops_sp_scalar", 1}}},
    {"t_rcpps", 1, {{"flops_sp_128", 4}}},
    {"t_rsqrtss", 1, {{"flops_sp_scalar", 1}}},
    // ADDSUB and HADD: 1 per lane; DPP: 2 per lane
    {"t_addsubpd", 1, {{"flops_dp_128", 2}}},
    {"t_vaddsubps_ymm", 1, {{"flops_sp_256", 8}}},
    {"t_haddpd", 1, {{"flops_dp_128", 2}}},
    {"t_vhaddps_ymm", 1, {{"flops_sp_256", 8}}},
    {"t_dppd", 1, {{"flops_dp_128", 4}}},
    {"t_dpps", 1, {{"flops_sp_128", 8}}},
    {"t_vdpps_ymm", 1, {{"flops_sp_256", 16}}},
    // not flops: compares, conversions, rounding, bitwise
    {"t_cmppd", 1, {}},
    {"t_cvtsi2sd", 1, {}},
    {"t_cvtpd2ps", 1, {}},
    {"t_roundpd", 1, {}},
    {"t_andpd", 1, {}},
    {"t_addsd_mem", 1, {{"flops_dp_scalar", 1}}, 8, 0},
    // x87: flops_x87 only (fld1 and fstp are not flops)
    {"t_x87_fadd", 4, {{"flops_x87", 1}}},
    {"t_x87_fsqrt", 3, {{"flops_x87", 1}}},
    {"t_x87_fmul_mem", 3, {{"flops_x87", 1}}, 16, 8},
    // bytes: exact sizes, masked and gathered lanes only when their mask bit is set
    {"t_movupd_load", 1, {}, 16, 0},
    {"t_vmovupd_store", 1, {}, 0, 32},
    {"t_maskload_full", 2, {}, 32, 0},
    {"t_maskload_none", 2, {}, 0, 0},
    {"t_maskstore_half", 4, {}, 0, 16},
    {"t_gather_full", 3, {}, 32, 0},
    {"t_gather_half", 5, {}, 16, 0},
    {"t_movntpd", 1, {}, 0, 16},
    // REP string instructions: every byte moved; one instruction whatever the count
    {"t_rep_movsb", 4, {}, 100, 100},
    {"t_rep_stosq", 3, {}, 0, 80},
    {"t_rep_zero", 3, {}, 0, 0},
    // locked read-modify-write: one read and one write
    {"t_lock_xadd", 2, {}, 4, 4},
    {"t_push_pop", 2, {}, 8, 8},
    // results nothing reads, and the same operation twice: counted all the same (VEX's
    // optimiser would drop or merge them before the tool sees them: docs/emulation.md)
    {"t_overwritten_mulsd", 2, {{"flops_dp_scalar", 1}}},
    {"t_overwritten_load", 2, {}, 8, 0},
    {"t_overwritten_cmp_mem", 2, {}, 8, 0},
    {"t_same_sqrtpd_twice", 2, {{"flops_dp_128", 4}}},
};

const Result& table_run() {
  static const Result r = [] {
    std::string path = fixture("emul_insn_table");
    std::vector<std::string> fns;
    for (const auto& e : kTable) fns.push_back(e.fn);
    return run({path}, entry_probes(path, fns), Options{});
  }();
  return r;
}

TEST(InsnTable, EveryFunctionRanOnce) {
  const Result& r = table_run();
  EXPECT_EQ(r.exit_code, 0);
  for (size_t i = 0; i < kTable.size(); ++i) EXPECT_EQ(of_region(r, regions::RegionId(i)).size(), 1u) << kTable[i].fn;
}

TEST(InsnTable, CountsFollowTheDocumentedRules) {
  const Result& r = table_run();
  const std::vector<std::string> fp = {"flops_sp_scalar", "flops_sp_128", "flops_sp_256", "flops_sp_512",
                                       "flops_dp_scalar", "flops_dp_128", "flops_dp_256", "flops_dp_512",
                                       "flops_x87"};
  for (size_t i = 0; i < kTable.size(); ++i) {
    const Expect& e = kTable[i];
    auto inst = of_region(r, regions::RegionId(i));
    ASSERT_EQ(inst.size(), 1u) << e.fn;
    EXPECT_EQ(value(r, inst[0], "instructions"), e.instructions + 1) << e.fn;
    for (const auto& c : fp) {
      auto it = e.fp.find(c);
      EXPECT_EQ(value(r, inst[0], c), it == e.fp.end() ? 0 : it->second) << e.fn << " " << c;
    }
    EXPECT_EQ(value(r, inst[0], "bytes_read_L1"), e.read + 8) << e.fn;
    EXPECT_EQ(value(r, inst[0], "bytes_written_L1"), e.written) << e.fn;
  }
}

}  // namespace
}  // namespace roofprof::emul::test
