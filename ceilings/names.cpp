#include "ceilings/names.hpp"

#include <array>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace roofprof::ceilings {
namespace {

template <class E, size_t N>
using Table = std::array<std::pair<E, const char*>, N>;

constexpr Table<Isa, 4> kIsa{{{Isa::scalar, "scalar"}, {Isa::sse, "sse"}, {Isa::avx2, "avx2"},
                              {Isa::avx512, "avx512"}}};
constexpr Table<Precision, 2> kPrecision{{{Precision::sp, "sp"}, {Precision::dp, "dp"}}};
constexpr Table<Op, 4> kOp{
    {{Op::fma, "fma"}, {Op::add, "add"}, {Op::mul, "mul"}, {Op::add_mul, "add_mul"}}};
constexpr Table<Level, 4> kLevel{
    {{Level::l1, "L1"}, {Level::l2, "L2"}, {Level::l3, "L3"}, {Level::dram, "DRAM"}}};
constexpr Table<Kind, 6> kKind{{{Kind::load, "load"},
                                {Kind::store, "store"},
                                {Kind::nt_store, "nt_store"},
                                {Kind::copy, "copy"},
                                {Kind::triad, "triad"},
                                {Kind::random, "random"}}};
constexpr Table<Mode, 2> kMode{{{Mode::quick, "quick"}, {Mode::full, "full"}}};

template <class E, size_t N>
const char* lookup(const Table<E, N>& t, E v) {
  for (const auto& [e, s] : t)
    if (e == v) return s;
  return "?";
}

template <class E, size_t N>
E parse(const Table<E, N>& t, std::string_view s, const char* what) {
  for (const auto& [e, n] : t)
    if (s == n) return e;
  std::string known;
  for (const auto& [e, n] : t) known += std::string(known.empty() ? "" : ", ") + n;
  throw UserError("unknown " + std::string(what) + " '" + std::string(s) + "' (known: " + known +
                  ")");
}

}  // namespace

const char* name(Isa v) { return lookup(kIsa, v); }
const char* name(Precision v) { return lookup(kPrecision, v); }
const char* name(Op v) { return lookup(kOp, v); }
const char* name(Level v) { return lookup(kLevel, v); }
const char* name(Kind v) { return lookup(kKind, v); }
const char* name(Mode v) { return lookup(kMode, v); }

Isa parse_isa(std::string_view s) { return parse(kIsa, s, "isa"); }
Precision parse_precision(std::string_view s) { return parse(kPrecision, s, "precision"); }
Op parse_op(std::string_view s) { return parse(kOp, s, "op"); }
Level parse_level(std::string_view s) { return parse(kLevel, s, "level"); }
Kind parse_kind(std::string_view s) { return parse(kKind, s, "kind"); }
Mode parse_mode(std::string_view s) { return parse(kMode, s, "mode"); }

int flops_per_lane(Op op) { return op == Op::fma ? 2 : 1; }

int lanes(Isa isa, Precision p) {
  const int bits = isa == Isa::scalar ? 0 : isa == Isa::sse ? 128 : isa == Isa::avx2 ? 256 : 512;
  if (bits == 0) return 1;
  return bits / (p == Precision::dp ? 64 : 32);
}

}  // namespace roofprof::ceilings
