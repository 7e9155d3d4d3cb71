#include "ceilings/theory.hpp"

#include <algorithm>

#include "ceilings/names.hpp"

namespace roofprof::ceilings {
namespace {

int width_bits(Isa isa, Precision p) {
  return isa == Isa::scalar ? (p == Precision::dp ? 64 : 32) : lanes(isa, p) * (p == Precision::dp ? 64 : 32);
}

// Sources: AMD's Software Optimization Guides for family 17h (Zen, Zen 2, pub. 55723, 56305),
// 19h (Zen 3, Zen 4, 56665, 57647) and 1Ah (Zen 5, 58455): four FP pipes, two FMA/MUL and two
// ADD, so add_mul peaks at twice add; Zen and Zen+ 128 bits wide, Zen 2-4 256 bits (Zen 4 runs
// AVX-512 as two halves), Zen 5 512 bits on the desktop/server die and 256 on the mobile one.
// Intel's 64 and IA-32 Architectures Optimization Reference Manual (248966): Sandy/Ivy Bridge
// one 256-bit add and one multiply port, no FMA, two 16-byte loads and one 16-byte store per
// cycle; Haswell/Broadwell two FMA ports, adds on one; Skylake and later client cores two FMA
// ports that also add and multiply; Ice Lake/Tiger Lake client one 512-bit FMA (ports 0+1
// fused); Sapphire/Emerald/Granite Rapids (Golden, Raptor, Redwood Cove) two 512-bit FMA units
// (ports 0+1 and 5), three load ports (two at 512 bits), 64 bytes stored per cycle; Gracemont
// and Crestmont E-cores (Alder Lake-N, Sierra Forest) two 128-bit FMA pipes.
bool in(unsigned model, unsigned lo, unsigned hi) { return model >= lo && model <= hi; }

// Model ranges as the kernel's bsp_init_amd and the event sets (counters/events/zen*.txt) say.
std::optional<CoreModel> amd_model(unsigned family, unsigned model) {
  if (family == 0x1A) {
    if (in(model, 0x00, 0x1F) || in(model, 0x40, 0x4F))
      return CoreModel{"AMD Zen 5 (512-bit datapath)", 512, 2, 2, 2, 4, 2, 64};
    if (in(model, 0x20, 0x2F) || in(model, 0x60, 0x6F))
      return CoreModel{"AMD Zen 5 (256-bit datapath)", 256, 2, 2, 2, 4, 2, 32};
    // Zen 5 whose AVX-512 width AMD's guide does not give: up to 256 bits only.
    if (in(model, 0x70, 0x7F)) return CoreModel{"AMD Zen 5 (512-bit rate not documented)", 256, 2, 2, 2, 4, 2, 32, 256};
    return std::nullopt;
  }
  if (family == 0x19) {
    if (in(model, 0x10, 0x1F) || in(model, 0x60, 0xAF)) return CoreModel{"AMD Zen 4", 256, 2, 2, 2, 4, 2, 32};
    if (in(model, 0x00, 0x0F) || in(model, 0x20, 0x5F)) return CoreModel{"AMD Zen 3", 256, 2, 2, 2, 4, 2, 32};
    return std::nullopt;
  }
  if (family == 0x17) {
    if (in(model, 0x00, 0x2F) || in(model, 0x50, 0x5F)) return CoreModel{"AMD Zen / Zen+", 128, 2, 2, 2, 4, 2, 16};
    if (in(model, 0x30, 0x4F) || in(model, 0x60, 0x7F) || in(model, 0x90, 0x91) || in(model, 0xA0, 0xAF))
      return CoreModel{"AMD Zen 2", 256, 2, 2, 2, 4, 2, 32};
  }
  return std::nullopt;
}

std::optional<CoreModel> intel_model(unsigned family, unsigned model) {
  if (family != 6) return std::nullopt;
  switch (model) {
    case 0x2A: case 0x2D: case 0x3A: case 0x3E:
      return CoreModel{"Intel Sandy Bridge/Ivy Bridge", 256, std::nullopt, 1, 1, 2, 2, 16};
    case 0x3C: case 0x3F: case 0x45: case 0x46: case 0x3D: case 0x47: case 0x4F: case 0x56:
      return CoreModel{"Intel Haswell/Broadwell", 256, 2, 1, 2, 2, 2, 32};
    case 0x4E: case 0x5E: case 0x8E: case 0x9E: case 0xA5: case 0xA6:
      return CoreModel{"Intel Skylake (client)", 256, 2, 2, 2, 2, 2, 32};
    case 0x55:
      return CoreModel{"Intel Skylake-SP/Cascade Lake (512-bit rate varies by part)", 256, 2, 2, 2, 2, 2, 64, 256, 512};
    case 0x6A: case 0x6C:
      return CoreModel{"Intel Ice Lake-SP (512-bit rate varies by part)", 256, 2, 2, 2, 2, 2, 64, 256, 512};
    case 0x7D: case 0x7E: case 0x8C: case 0x8D:
      return CoreModel{"Intel Ice Lake/Tiger Lake (client)", 256, 2, 2, 2, 2, 2, 64, 512, 512};
    // add and mul go to different port pairs (1+5, 0+1): add_mul between 2 and 3, not modelled.
    case 0x8F: return CoreModel{"Intel Sapphire Rapids", 512, 2, 2, 2, std::nullopt, 2, 64};
    case 0xCF: return CoreModel{"Intel Emerald Rapids", 512, 2, 2, 2, std::nullopt, 2, 64};
    case 0xAD: case 0xAE: return CoreModel{"Intel Granite Rapids", 512, 2, 2, 2, std::nullopt, 2, 64};
    case 0xBE: return CoreModel{"Intel Gracemont (Alder Lake-N)", 128, 2, 2, 2, 2, 2, 16};
    case 0xAF: return CoreModel{"Intel Crestmont (Sierra Forest)", 128, 2, 2, 2, 2, 2, 16};
    // Hybrid parts (Alder/Raptor/Meteor/Arrow/Lunar/Panther Lake) and Clearwater Forest: P- and
    // E-cores differ and a team may hold both; not modelled.
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<CoreModel> core_model(const CpuSignature& sig) {
  if (sig.vendor == "AuthenticAMD") return amd_model(sig.family, sig.model);
  if (sig.vendor == "GenuineIntel") return intel_model(sig.family, sig.model);
  return std::nullopt;
}

std::optional<double> theoretical_gflops(const std::optional<CoreModel>& m, Isa isa,
                                         Precision p, Op op, double ghz, int cores) {
  if (!m || ghz <= 0) return std::nullopt;
  const std::optional<double> rate = op == Op::fma   ? m->fma_per_cycle
                                     : op == Op::add ? m->add_per_cycle
                                     : op == Op::mul ? m->mul_per_cycle
                                                     : m->add_mul_per_cycle;
  const int bits = width_bits(isa, p);
  if (!rate || bits > m->known_bits) return std::nullopt;
  double per_cycle = *rate;
  if (bits > m->datapath_bits) per_cycle *= double(m->datapath_bits) / bits;
  return per_cycle * lanes(isa, p) * flops_per_lane(op) * ghz * cores;
}

std::optional<double> theoretical_gbytes_per_s(const std::optional<CoreModel>& m, Level level,
                                               Kind kind, Isa isa, double ghz, int cores) {
  if (!m || ghz <= 0 || level != Level::l1) return std::nullopt;
  const int bits = width_bits(isa, Precision::dp);
  if (kind == Kind::load) {
    const double bytes = m->loads_per_cycle * std::min(bits, m->load_bits ? m->load_bits : m->datapath_bits) / 8.0;
    return bytes * ghz * cores;
  }
  if (kind == Kind::store) return std::min(m->store_bytes_per_cycle, bits / 8.0) * ghz * cores;
  return std::nullopt;
}

}  // namespace roofprof::ceilings
