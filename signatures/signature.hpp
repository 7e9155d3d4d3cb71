#pragma once
// A signature: how to read the size parameters of a function from its arguments at entry,
// and the standard number of flops of one call as an expression over them.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "signatures/arg_reader.hpp"

namespace roofprof::signatures {

// How one parameter is read from integer-class argument `arg`.
enum class Read {
  value_i64,    // the argument itself, as a 64-bit signed integer (long, size_t)
  value_i32,    // the argument's low 32 bits, signed (C int, enum)
  pointee_i32,  // the 32-bit int it points to (Fortran INTEGER, LP64 BLAS/LAPACK)
  pointee_i64,  // the 64-bit int it points to (Fortran INTEGER*8, ILP64 builds)
};

struct Param {
  std::string name;  // "m"
  int arg = 0;       // integer-class argument index, 0-based
  Read read = Read::pointee_i32;
};

struct Signature {
  std::string function;         // "dgemm_"
  std::vector<Param> params;    // in key order
  std::string work;             // flops of one call over the params ("2*m*n*k"); "" if none
};

// The arguments of one call.
struct Decoded {
  std::string key;                                       // "m=200,n=200,k=200"
  std::vector<std::pair<std::string, int64_t>> params;   // in signature order
  std::optional<double> expected_work;                   // flops of this call; null: no formula

  std::map<std::string, double> param_map() const;
};

// Reads the parameters of `sig` through `reader`; null when an argument or the memory it
// points to cannot be read.
std::optional<Decoded> decode(const Signature& sig, ArgReader& reader);

// "m=200,n=200,k=200" for those params in that order.
std::string group_key(const std::vector<std::pair<std::string, int64_t>>& params);

}  // namespace roofprof::signatures
