// landing_pads: the LSDA call-site tables reached through .eh_frame_hdr, on a hand-written LSDA
// (tests/fixtures/native/plan_cases.S, p_pad) and on g++'s (tests/fixtures/native/throw.cpp).
#include <gtest/gtest.h>

#include <link.h>

#include <algorithm>
#include <cstring>

#include "native/decode.hpp"
#include "native/landing_pads.hpp"
#include "symbolizer/elf_file.hpp"
#include "tests/unit/native/harness.hpp"

namespace roofprof::native::test {
namespace {


TEST(LandingPads, AHandWrittenLsdasPad) {
  ASSERT_NE(plan_cases().eh_frame_hdr(), 0u);
  const auto pads = landing_pads(plan_cases().mapped(), plan_cases().eh_frame_hdr());
  EXPECT_EQ(pads, std::vector<uint64_t>{plan_cases().address("p_pad_landing")});
}

TEST(LandingPads, AsBusyAddressesTheyStartSites) {
  const uint64_t pad = plan_cases().address("p_pad_landing"), after = plan_cases().address("p_pad_after_call");
  // without them, the site after the call covers the pad 4 bytes in: under the jump
  const ModulePlan blind = plan_cases().plan();
  bool covered = false;
  for (const Site& s : blind.sites) covered |= s.start == after && s.end > pad;
  EXPECT_TRUE(covered);
  const auto pads = landing_pads(plan_cases().mapped(), plan_cases().eh_frame_hdr());
  const ModulePlan p = plan_module(plan_cases().code(), plan_cases().functions(), pads, plan_cases().data());
  bool pad_starts = false, after_refused = false;
  for (const Site& s : p.sites) pad_starts |= s.start == pad;
  for (const Uncounted& u : p.uncounted) after_refused |= u.start == after && u.why == "shorter than a jump (4 bytes)";
  EXPECT_TRUE(pad_starts);
  EXPECT_TRUE(after_refused);
}

TEST(LandingPads, GxxCatchHandlersAreInstructionsOfTheirFunctions) {
  LoadedModule m(fixture_path("libnative_throw.so"));
  const auto pads = landing_pads(m.mapped(), m.eh_frame_hdr());
  ASSERT_GE(pads.size(), 2u);  // nt_scale_catch's handler; std::to_string's cleanups
  // each is in a function and where a linear decode of it puts an instruction
  for (uint64_t pad : pads) {
    const Function* in = nullptr;
    for (const Function& f : m.functions())
      if (pad >= f.start && pad < f.start + f.size) in = &f;
    ASSERT_NE(in, nullptr) << std::hex << pad;
    const ModulePlan p = plan_module(m.code(), std::vector<Function>{*in}, std::vector<uint64_t>{pad}, m.data());
    const ModulePlan q = plan_module(m.code(), std::vector<Function>{*in}, {}, m.data());
    // a pad the decode agrees with changes nothing when it already starts a block (after a call)
    EXPECT_EQ(p.sites.size(), q.sites.size()) << in->name;
  }
  // nt_scale_catch's handler follows the call that throws, in nt_scale_catch.cold
  const Function* cold = nullptr;
  for (const Function& f : m.functions())
    if (f.name == "nt_scale_catch.cold") cold = &f;
  ASSERT_NE(cold, nullptr);
  EXPECT_TRUE(std::any_of(pads.begin(), pads.end(), [&](uint64_t a) { return a > cold->start && a < cold->start + cold->size; }));
}

// This process's libstdc++ as loaded: its PT_LOAD ranges, PT_GNU_EH_FRAME and functions.
struct Loaded {
  std::string path;
  uint64_t base = 0, hdr = 0;
  std::vector<CodeRange> ranges;
};
Loaded loaded_libstdcxx() {
  Loaded l;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* arg) {
        auto* l = static_cast<Loaded*>(arg);
        if (!std::strstr(info->dlpi_name, "libstdc++")) return 0;
        l->path = info->dlpi_name;
        l->base = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const auto& ph = info->dlpi_phdr[i];
          if (ph.p_type == PT_LOAD)
            l->ranges.push_back({l->base + ph.p_vaddr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(l->base + ph.p_vaddr), ph.p_filesz)});
          if (ph.p_type == PT_GNU_EH_FRAME) l->hdr = l->base + ph.p_vaddr;
        }
        return 1;
      },
      &l);
  return l;
}

TEST(LandingPads, EveryPadOfLibstdcxxInAFunctionIsOneOfItsInstructions) {
  const Loaded l = loaded_libstdcxx();
  ASSERT_FALSE(l.path.empty());
  const auto pads = landing_pads(l.ranges, l.hdr);
  EXPECT_GT(pads.size(), 1000u);
  auto elf = symbolizer::ElfFile::open(l.path);
  size_t on_boundary = 0, in_function = 0;
  for (uint64_t pad : pads) {
    const symbolizer::Symbol* s = elf->function_at(pad - l.base);
    if (!s) continue;
    ++in_function;
    const uint64_t start = l.base + s->value;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(start);
    for (uint64_t off = 0; off < s->size;) {
      if (start + off == pad) {
        ++on_boundary;
        break;
      }
      auto in = decode_insn(p + off, s->size - off, start + off);
      if (!in) break;
      off += in->length;
    }
  }
  // libstdc++ ships .dynsym only: pads in .cold parts and local functions have no symbol
  EXPECT_GT(in_function, 1000u);
  EXPECT_EQ(on_boundary, in_function);
}

TEST(LandingPads, NothingOutsideTheMappedRanges) {
  EXPECT_TRUE(landing_pads(plan_cases().mapped(), 0x10).empty());
}

}  // namespace
}  // namespace roofprof::native::test
