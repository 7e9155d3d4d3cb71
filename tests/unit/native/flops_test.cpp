// insn_flops against the emulation tool's rules, instruction by instruction: the functions of
// tests/fixtures/emul/insn_table.S with the counts tests/unit/emul/insn_table_test.cpp expects of
// the tool, and the AVX-512 and x87 forms of tests/fixtures/native/evex_table.S.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "native/counting.hpp"
#include "native/decode.hpp"
#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {

const char* const kSlotNames[] = RP_NATIVE_SLOT_NAMES;

struct Expect {
  const char* fn;
  std::map<std::string, uint64_t> fp;  // nonzero classes, every lane active
};

// The flops of tests/unit/emul/insn_table_test.cpp's kTable, in the same order.
const std::vector<Expect> kEmulTable = {
    {"t_addsd", {{"flops_dp_scalar", 1}}},
    {"t_addss", {{"flops_sp_scalar", 1}}},
    {"t_addpd", {{"flops_dp_128", 2}}},
    {"t_mulps", {{"flops_sp_128", 4}}},
    {"t_vaddpd_ymm", {{"flops_dp_256", 4}}},
    {"t_vaddps_ymm", {{"flops_sp_256", 8}}},
    {"t_vfmadd231sd", {{"flops_dp_scalar", 2}}},
    {"t_vfmadd231ss", {{"flops_sp_scalar", 2}}},
    {"t_vfmadd231pd_xmm", {{"flops_dp_128", 4}}},
    {"t_vfmadd231pd_ymm", {{"flops_dp_256", 8}}},
    {"t_vfmadd231ps_xmm", {{"flops_sp_128", 8}}},
    {"t_vfmadd231ps_ymm", {{"flops_sp_256", 16}}},
    {"t_vfnmsub231pd_ymm", {{"flops_dp_256", 8}}},
    {"t_vfmaddsub231pd_ymm", {{"flops_dp_256", 8}}},
    {"t_divpd", {{"flops_dp_128", 2}}},
    {"t_vdivps_ymm", {{"flops_sp_256", 8}}},
    {"t_sqrtsd", {{"flops_dp_scalar", 1}}},
    {"t_vsqrtpd_ymm", {{"flops_dp_256", 4}}},
    {"t_minpd", {{"flops_dp_128", 2}}},
    {"t_maxss", {{"flops_sp_scalar", 1}}},
    {"t_rcpps", {{"flops_sp_128", 4}}},
    {"t_rsqrtss", {{"flops_sp_scalar", 1}}},
    {"t_addsubpd", {{"flops_dp_128", 2}}},
    {"t_vaddsubps_ymm", {{"flops_sp_256", 8}}},
    {"t_haddpd", {{"flops_dp_128", 2}}},
    {"t_vhaddps_ymm", {{"flops_sp_256", 8}}},
    {"t_dppd", {{"flops_dp_128", 4}}},
    {"t_dpps", {{"flops_sp_128", 8}}},
    {"t_vdpps_ymm", {{"flops_sp_256", 16}}},
    {"t_cmppd", {}},
    {"t_cvtsi2sd", {}},
    {"t_cvtpd2ps", {}},
    {"t_roundpd", {}},
    {"t_andpd", {}},
    {"t_addsd_mem", {{"flops_dp_scalar", 1}}},
    {"t_x87_fadd", {{"flops_x87", 1}}},
    {"t_x87_fsqrt", {{"flops_x87", 1}}},
    {"t_x87_fmul_mem", {{"flops_x87", 1}}},
    {"t_movupd_load", {}},
    {"t_vmovupd_store", {}},
    {"t_maskload_full", {}},
    {"t_maskload_none", {}},
    {"t_maskstore_half", {}},
    {"t_gather_full", {}},
    {"t_gather_half", {}},
    {"t_movntpd", {}},
    {"t_rep_movsb", {}},
    {"t_rep_stosq", {}},
    {"t_rep_zero", {}},
    {"t_lock_xadd", {}},
    {"t_push_pop", {}},
    {"t_overwritten_mulsd", {{"flops_dp_scalar", 1}}},
    {"t_overwritten_load", {}},
    {"t_overwritten_cmp_mem", {}},
    {"t_same_sqrtpd_twice", {{"flops_dp_128", 4}}},
};

// What one function of a file's image holds: flops per class (masked instructions with every
// lane active), the opmasks of its masked instructions, and how many instructions have flops.
struct Found {
  std::map<std::string, uint64_t> fp;
  std::vector<int> masks;
  int fp_insns = 0;
};

Found scan(const FileImage& img, const std::string& name) {
  Found out;
  for (const Function& f : img.functions) {
    if (f.name != name) continue;
    const uint8_t* p = nullptr;
    for (const CodeRange& r : img.code)
      if (f.start >= r.address && f.start + f.size <= r.address + r.bytes.size()) p = r.bytes.data() + (f.start - r.address);
    if (!p) ADD_FAILURE() << name << " is not in the code";
    for (uint64_t off = 0; p && off < f.size;) {
      auto insn = decode_insn(p + off, f.size - off, f.start + off);
      if (!insn) {
        ADD_FAILURE() << name << " does not decode at +" << off;
        break;
      }
      if (auto fl = insn_flops(p + off, f.size - off, f.start + off)) {
        ++out.fp_insns;
        out.fp[kSlotNames[fl->slot]] += fl->flops();
        if (fl->mask) out.masks.push_back(fl->mask);
      }
      off += insn->length;
    }
    return out;
  }
  ADD_FAILURE() << "no function " << name;
  return out;
}

const FileImage& emul_table() {
  static const FileImage img = read_file_image(fixture_path("emul_insn_table"));
  return img;
}
const FileImage& evex_table() {
  static const FileImage img = read_file_image(fixture_path("libnative_evex_table.so"));
  return img;
}

TEST(InsnFlops, TheEmulationToolsTableGivesTheSameFlopsAndClasses) {
  for (const Expect& e : kEmulTable) {
    const Found f = scan(emul_table(), e.fn);
    EXPECT_EQ(f.fp, e.fp) << e.fn;
    EXPECT_TRUE(f.masks.empty()) << e.fn;
  }
}

TEST(InsnFlops, TheEmulationTableHasOneFlopInstructionPerCountedFunction) {
  // t_same_sqrtpd_twice: two instructions; the others one (x87: one of their 3-4).
  for (const Expect& e : kEmulTable) {
    const int expected = e.fp.empty() ? 0 : std::string(e.fn) == "t_same_sqrtpd_twice" ? 2 : 1;
    EXPECT_EQ(scan(emul_table(), e.fn).fp_insns, expected) << e.fn;
  }
}

struct EvexExpect {
  const char* fn;
  std::map<std::string, uint64_t> fp;  // with every lane active
  std::vector<int> masks;              // opmasks of the masked instructions
};

const std::vector<EvexExpect> kEvexTable = {
    {"e_vaddpd_zmm", {{"flops_dp_512", 8}}, {}},
    {"e_vaddps_zmm", {{"flops_sp_512", 16}}, {}},
    {"e_vaddpd_ymm_evex", {{"flops_dp_256", 4}}, {}},
    {"e_vaddps_xmm_evex", {{"flops_sp_128", 4}}, {}},
    {"e_vfmadd231pd_zmm", {{"flops_dp_512", 16}}, {}},
    {"e_vfmadd213ps_zmm", {{"flops_sp_512", 32}}, {}},
    {"e_vfmadd231ps_zmm_k1", {{"flops_sp_512", 32}}, {1}},
    {"e_vaddps_zmm_k2z", {{"flops_sp_512", 16}}, {2}},
    {"e_vmulpd_ymm_k3", {{"flops_dp_256", 4}}, {3}},
    {"e_vdivps_zmm_k7", {{"flops_sp_512", 16}}, {7}},
    {"e_vfmadd231pd_bcast", {{"flops_dp_512", 16}}, {}},
    {"e_vaddps_bcast_ymm", {{"flops_sp_256", 8}}, {}},
    {"e_vfnmsub213pd_k1_bcast", {{"flops_dp_512", 16}}, {1}},
    {"e_vaddpd_rn_sae", {{"flops_dp_512", 8}}, {}},
    {"e_vaddsd_k1", {{"flops_dp_scalar", 1}}, {1}},
    {"e_vaddsd_rz_sae", {{"flops_dp_scalar", 1}}, {}},
    {"e_vfmadd231ss_k5", {{"flops_sp_scalar", 2}}, {5}},
    {"e_vsqrtpd_zmm", {{"flops_dp_512", 8}}, {}},
    {"e_vminpd_zmm", {{"flops_dp_512", 8}}, {}},
    {"e_vmaxps_zmm", {{"flops_sp_512", 16}}, {}},
    {"e_vrcp14pd_zmm", {{"flops_dp_512", 8}}, {}},
    {"e_vrsqrt14ps_ymm", {{"flops_sp_256", 8}}, {}},
    {"e_vrcp14sd", {{"flops_dp_scalar", 1}}, {}},
    {"e_vsubpd_zmm_mem", {{"flops_dp_512", 8}}, {}},
    {"e_vscalefpd_zmm", {}, {}},
    {"e_vrangepd_zmm", {}, {}},
    {"e_vreducepd_zmm", {}, {}},
    {"e_vgetexppd_zmm", {}, {}},
    {"e_vcmppd_k1", {}, {}},
    {"e_vmovapd_k1", {}, {}},
    {"e_vpaddd_zmm", {}, {}},
    {"e_vcvtpd2ps_zmm", {}, {}},
    {"e_vpmaxsd_zmm", {}, {}},
    {"e_x87_fsin", {{"flops_x87", 1}}, {}},
    {"e_x87_fsincos", {{"flops_x87", 2}}, {}},
    {"e_x87_fiadd", {{"flops_x87", 1}}, {}},
    {"e_x87_fdivrp", {{"flops_x87", 1}}, {}},
    {"e_x87_fcmov_fcom_fchs", {}, {}},
};

TEST(InsnFlops, Avx512WidthsMasksBroadcastsAndRounding) {
  for (const EvexExpect& e : kEvexTable) {
    const Found f = scan(evex_table(), e.fn);
    EXPECT_EQ(f.fp, e.fp) << e.fn;
    EXPECT_EQ(f.masks, e.masks) << e.fn;
  }
}

TEST(InsnFlops, MaskedLanesAreTheClassLanes) {
  // vmulpd ymm0{k3}: 4 DP lanes, 1 flop each; vfmadd231ss xmm0{k5}: 1 lane, 2 flops.
  const uint8_t vmulpd_ymm_k3[] = {0x62, 0xf1, 0xf5, 0x2b, 0x59, 0xc2};
  auto f = insn_flops(vmulpd_ymm_k3, sizeof vmulpd_ymm_k3, 0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->slot, RP_NATIVE_DP_256);
  EXPECT_EQ(f->lanes, 4u);
  EXPECT_EQ(f->per_lane, 1u);
  EXPECT_EQ(f->mask, 3);
  const uint8_t vfmadd231ss_k5[] = {0x62, 0xf2, 0x75, 0x0d, 0xb9, 0xc2};
  f = insn_flops(vfmadd231ss_k5, sizeof vfmadd231ss_k5, 0);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->slot, RP_NATIVE_SP_SCALAR);
  EXPECT_EQ(f->lanes, 1u);
  EXPECT_EQ(f->per_lane, 2u);
  EXPECT_EQ(f->mask, 5);
}

TEST(InsnFlops, NothingForIntegerCodeOrBytesThatDoNotDecode) {
  const uint8_t add_rax[] = {0x48, 0x01, 0xc0};
  EXPECT_FALSE(insn_flops(add_rax, sizeof add_rax, 0));
  const uint8_t truncated_addsd[] = {0xf2, 0x0f};
  EXPECT_FALSE(insn_flops(truncated_addsd, sizeof truncated_addsd, 0));
}

}  // namespace
}  // namespace roofprof::native::test
