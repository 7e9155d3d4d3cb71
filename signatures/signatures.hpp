#pragma once
// roofprof_signatures: the arguments of a call -> a group key and its parameters (pure C++;
// the caller supplies registers and memory through an ArgReader).
//   find_builtin("dgemm_")        the built-in signature, or null
//   parse_user_signature(spec)    a signature the user wrote ("mysolve_:n=*arg0")
//   decode(sig, reader)           key "m=200,n=200,k=200", params, expected flops of the call
//   Expr / parse_work_option      work formulas (--work 'dgemm_=2*m*n*k')
#include "signatures/arg_reader.hpp"
#include "signatures/builtin.hpp"
#include "signatures/expr.hpp"
#include "signatures/signature.hpp"
#include "signatures/user_spec.hpp"
