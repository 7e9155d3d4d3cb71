#include "ceilings/theory.hpp"

#include <algorithm>

#include "ceilings/names.hpp"

namespace roofprof::ceilings {
namespace {

int width_bits(Isa isa, Precision p) {
  return isa == Isa::scalar ? (p == Precision::dp ? 64 : 32) : lanes(isa, p) * (p == Precision::dp ? 64 : 32);
}

// Per AMD's and Intel's optimisation manuals: four FP pipes on Zen 2-5 (two FMA/MUL, two ADD),
// two FMA ports that also add and multiply on Skylake client, one FP add port on Haswell.
std::optional<CoreModel> amd_model(unsigned family, unsigned model) {
  if (family == 0x1A) {
    const bool full512 = model <= 0x1F || (model >= 0x40 && model <= 0x4F);
    const bool half512 = (model >= 0x20 && model <= 0x2F) || (model >= 0x60 && model <= 0x6F);
    if (full512) return CoreModel{"AMD Zen 5 (512-bit datapath)", 512, 2, 2, 2, 4, 2, 64};
    if (half512) return CoreModel{"AMD Zen 5 (256-bit datapath)", 256, 2, 2, 2, 4, 2, 32};
    return std::nullopt;
  }
  if (family == 0x19) {
    const bool zen4 = (model >= 0x10 && model <= 0x1F) || (model >= 0x60 && model <= 0x7F) ||
                      (model >= 0xA0 && model <= 0xAF);
    if (zen4) return CoreModel{"AMD Zen 4", 256, 2, 2, 2, 4, 2, 32};
    return CoreModel{"AMD Zen 3", 256, 2, 2, 2, 4, 2, 32};
  }
  if (family == 0x17 && model >= 0x30) return CoreModel{"AMD Zen 2", 256, 2, 2, 2, 4, 2, 32};
  return std::nullopt;
}

std::optional<CoreModel> intel_model(unsigned family, unsigned model) {
  if (family != 6) return std::nullopt;
  switch (model) {
    case 0x4E: case 0x5E: case 0x8E: case 0x9E: case 0xA5: case 0xA6:
      return CoreModel{"Intel Skylake (client)", 256, 2, 2, 2, 2, 2, 32};
    case 0x3C: case 0x3F: case 0x45: case 0x46: case 0x3D: case 0x47: case 0x4F: case 0x56:
      return CoreModel{"Intel Haswell/Broadwell", 256, 2, 1, 2, 2, 2, 32};
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
  double per_cycle = op == Op::fma   ? m->fma_per_cycle
                     : op == Op::add ? m->add_per_cycle
                     : op == Op::mul ? m->mul_per_cycle
                                     : m->add_mul_per_cycle;
  const int bits = width_bits(isa, p);
  if (bits > m->datapath_bits) per_cycle *= double(m->datapath_bits) / bits;
  return per_cycle * lanes(isa, p) * flops_per_lane(op) * ghz * cores;
}

std::optional<double> theoretical_gbytes_per_s(const std::optional<CoreModel>& m, Level level,
                                               Kind kind, Isa isa, double ghz, int cores) {
  if (!m || ghz <= 0 || level != Level::l1) return std::nullopt;
  const int bits = width_bits(isa, Precision::dp);
  if (kind == Kind::load) {
    const double bytes = m->loads_per_cycle * std::min(bits, m->datapath_bits) / 8.0;
    return bytes * ghz * cores;
  }
  if (kind == Kind::store) return std::min(m->store_bytes_per_cycle, bits / 8.0) * ghz * cores;
  return std::nullopt;
}

}  // namespace roofprof::ceilings
