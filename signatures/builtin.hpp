#pragma once
// Signatures roofprof knows: Fortran BLAS/LAPACK (every argument a pointer; LP64 INTEGER) and
// CBLAS (sizes passed by value as int), with the standard flop counts of one call.
#include <span>
#include <string_view>

#include "signatures/signature.hpp"

namespace roofprof::signatures {

std::span<const Signature> builtin_signatures();
// The built-in signature of `function` ("dgemm_"); null when there is none.
const Signature* find_builtin(std::string_view function);

}  // namespace roofprof::signatures
