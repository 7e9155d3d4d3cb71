#pragma once
// The spelling of each enum in JSON and tables; parse_* throws UserError on unknown words.
#include <string_view>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

const char* name(Isa v);
const char* name(Precision v);
const char* name(Op v);
const char* name(Level v);
const char* name(Kind v);
const char* name(Mode v);

Isa parse_isa(std::string_view s);
Precision parse_precision(std::string_view s);
Op parse_op(std::string_view s);
Level parse_level(std::string_view s);
Kind parse_kind(std::string_view s);
Mode parse_mode(std::string_view s);

// Flops of one vector instruction of `op` per lane (fma 2, others 1) and lanes of `isa`.
int flops_per_lane(Op op);
int lanes(Isa isa, Precision p);

}  // namespace roofprof::ceilings
