#pragma once
// Signatures written by the user, for functions roofprof does not know and for `--work`.
#include <string>
#include <string_view>

#include "signatures/expr.hpp"
#include "signatures/signature.hpp"

namespace roofprof::signatures {

// "NAME:PARAM=ARG[,PARAM=ARG...]" where ARG is `argI` (the I-th integer or pointer argument,
// 0-based, floating-point arguments not counted, as a 64-bit integer), `argI:i32` (its low 32
// bits, a C int), `*argI` (the 32-bit integer it points to, Fortran INTEGER) or `*argI:i64`.
// Example: "fft_run:n=arg1:i32" or "mysolve_:n=*arg0,nrhs=*arg1". The work formula is left
// empty. Throws UserError on a malformed spec.
Signature parse_user_signature(std::string_view spec);

// `--work 'NAME=EXPR'`: flops of one call of NAME as an expression over its parameters.
struct WorkFormula {
  std::string function;
  Expr expr;
};
WorkFormula parse_work_option(std::string_view option);

}  // namespace roofprof::signatures
