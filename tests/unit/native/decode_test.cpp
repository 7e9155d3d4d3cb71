// The opcode tables (native/table_decode.cpp) and the EVEX decoder (native/evex.cpp, length,
// rip-relative operand and flops) against Capstone (decode_with_capstone) on real
// code: every instruction of the functions of libc, libm, the fixtures and, where installed,
// OpenBLAS, decoded linearly, must have the same length, control flow, targets, rip-relative
// operand and flops; an instruction Capstone says reads flags must read some by the tables, and
// the tables may not say it writes a flag Capstone does not (exceptions below, where Capstone 4
// is wrong).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "native/decode.hpp"
#include "native/evex.hpp"
#include "native/table_decode.hpp"
#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {

const uint8_t kMap3[] = {0x0f, 0x3a};

struct Tally {
  uint64_t compared = 0, tables_only = 0, capstone_only = 0, evex_compared = 0;
};

bool same_flops(const std::optional<InsnFlops>& a, const std::optional<InsnFlops>& b) {
  if (!a || !b) return !a && !b;
  return a->slot == b->slot && a->per_lane == b->per_lane && a->lanes == b->lanes && a->mask == b->mask;
}

void compare_file(const std::string& path, Tally& t) {
  const FileImage img = read_file_image(path);
  int failures = 0;
  uint64_t last_end = 0;
  for (const Function& f : img.functions) {
    if (f.start < last_end) continue;
    last_end = f.start + f.size;
    const uint8_t* p = nullptr;
    for (const CodeRange& r : img.code)
      if (f.start >= r.address && f.start + f.size <= r.address + r.bytes.size()) p = r.bytes.data() + (f.start - r.address);
    if (!p) continue;
    for (uint64_t off = 0; off < f.size && failures < 20;) {
      const uint64_t at = f.start + off;
      auto fast = decode_from_tables(p + off, f.size - off, at);
      auto cs = decode_with_capstone(p + off, f.size - off, at);
      const auto evex_insn = decode_evex(p + off, f.size - off, at);
      const bool evex = evex_insn.has_value();
      if (evex && cs) {
        ++t.evex_compared;
        if (evex_insn->length != cs->length || evex_insn->rip_disp_at != cs->rip_disp_at || evex_insn->target != cs->target ||
            !same_flops(evex_insn->flops, cs->flops)) {
          ++failures;
          ADD_FAILURE() << path << " " << f.name << "+" << off << ": EVEX length " << int(evex_insn->length) << "/"
                        << int(cs->length) << " flops " << bool(evex_insn->flops) << "/" << bool(cs->flops);
        }
      }
      if (fast && !cs) ++t.tables_only;  // Capstone 4 has no VEX kmov (c4 e1 fb 92 ...)
      if (!fast && cs && !evex) ++t.capstone_only;
      if (fast && cs) {
        ++t.compared;
        // Capstone 4 gives VEX vucomis/vcomis no flags (the tables know they write all six), says
        // adc and sbb read every flag (CF only), and gives x87 instructions the x87 status flags
        // in the same field (not EFLAGS; the tables know fcmov, fcomi and fucomi); it gives some
        // VEX instructions (vpand, vpminub) reads of every flag: no VEX instruction reads one.
        const uint8_t* b = p + off;
        const uint8_t vex_op = b[0] == 0xc5 ? b[2] : b[0] == 0xc4 ? b[3] : 0;
        const bool comis = vex_op == 0x2e || vex_op == 0x2f;  // and pcmp[ei]str[im], which write all six:
        const uint8_t* map3 = std::search(b, b + cs->length, std::begin(kMap3), std::end(kMap3));
        const bool pcmpstr = map3 + 2 < b + cs->length && map3[2] >= 0x60 && map3[2] <= 0x63;
        const bool x87 = (p[off] >= 0xd8 && p[off] <= 0xdf) || p[off] == 0x9b;
        const bool vex = p[off] == 0xc4 || p[off] == 0xc5;
        const bool same = fast->length == cs->length && fast->flow == cs->flow && fast->target == cs->target &&
                          fast->cc == cs->cc && fast->rip_disp_at == cs->rip_disp_at && fast->absolute_table == cs->absolute_table && same_flops(fast->flops, cs->flops) &&
                          (x87 || vex || cs->flags_read == 0 || fast->flags_read != 0) &&
                          (x87 || comis || pcmpstr || (fast->flags_written & ~cs->flags_written) == 0);
        if (!same) {
          ++failures;
          char bytes[64] = "";
          for (int i = 0; i < cs->length && i < 15; ++i) std::snprintf(bytes + 3 * i, 4, "%02x ", p[off + i]);
          ADD_FAILURE() << path << " " << f.name << "+" << off << ": " << bytes << " length " << int(fast->length) << "/"
                        << int(cs->length) << " flow " << int(fast->flow) << "/" << int(cs->flow) << " target " << fast->target
                        << "/" << cs->target << " rip " << int(fast->rip_disp_at) << "/" << int(cs->rip_disp_at) << " flops "
                        << bool(fast->flops) << "/" << bool(cs->flops) << " read " << int(fast->flags_read) << "/"
                        << int(cs->flags_read) << " written " << int(fast->flags_written) << "/" << int(cs->flags_written);
        }
      }
      const uint8_t len = cs ? cs->length : fast ? fast->length : 1;
      off += len;
    }
  }
}

TEST(TableDecode, AgreesWithCapstoneOnRealCode) {
  std::vector<std::string> files = {fixture_path("libnative_kernels_O2.so"), fixture_path("libnative_kernels_O3.so"),
                                    fixture_path("libnative_throw.so"), fixture_path("libnative_plan_cases.so"),
                                    fixture_path("emul_insn_table"), fixture_path("native_kernels_nopie")};
  for (const char* lib : {"/lib/x86_64-linux-gnu/libc.so.6", "/lib/x86_64-linux-gnu/libm.so.6",
                          "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
                          "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"})
    if (std::filesystem::exists(lib)) files.push_back(lib);
  Tally t;
  for (const auto& f : files) compare_file(f, t);
  EXPECT_GT(t.compared, 100000u);
  EXPECT_GT(t.evex_compared, 1000u);  // libc's EVEX string functions, OpenBLAS's AVX-512 kernels
  // the tables leave little to Capstone but EVEX (native/evex.cpp): xbegin, 3DNow!, XOP, far
  // and 16-bit branches (`data16 data16 rex.W call __tls_get_addr`)
  EXPECT_LT(t.capstone_only * 1000, t.compared);
  RecordProperty("compared", std::to_string(t.compared));
  std::printf("compared %llu (EVEX %llu), tables only %llu, Capstone only %llu\n", (unsigned long long)t.compared,
              (unsigned long long)t.evex_compared, (unsigned long long)t.tables_only, (unsigned long long)t.capstone_only);
}

}  // namespace
}  // namespace roofprof::native::test
