#pragma once
// The flop rules by opcode (docs/native.md, "The rules"), one definition for the EVEX decoder,
// the opcode tables and the x87 part of Capstone's path.
#include <cstdint>
#include <optional>

#include "native/counting.hpp"

namespace roofprof::native {

// A class from precision, packed or scalar, and vector bits (128, 256, 512).
InsnFlops make_flops(bool dp, bool packed, unsigned bits, uint32_t per_lane);
// Map 0f, type prefix pp (0 ps, 1 pd, 2 ss, 3 sd): sqrt add mul sub min div max (51 58 59 5c-5f),
// in every encoding.
std::optional<InsnFlops> arith_flops(uint8_t op, unsigned pp, unsigned bits);
// Map 0f, legacy and VEX only: rsqrt and rcp (52 53: ps, ss), hadd hsub addsub (7c 7d d0: pd, ps).
std::optional<InsnFlops> sse_only_flops(uint8_t op, unsigned pp, unsigned bits);
// Map 0f38 with 66, VEX and EVEX: FMA3 (96-9f a6-af b6-bf), W selecting double.
std::optional<InsnFlops> fma3_flops(uint8_t op, unsigned pp, unsigned bits, bool w);
// x87 (d8-df) and its ModRM byte.
std::optional<InsnFlops> x87_flops(uint8_t op, uint8_t modrm);

}  // namespace roofprof::native
