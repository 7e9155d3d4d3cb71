// The formulas are the usual operation counts (each multiply and each add is one flop): BLAS
// level 1-3 from their definition, LAPACK factorizations from LAPACK Working Note 41.
#include "signatures/builtin.hpp"

#include <vector>

namespace roofprof::signatures {
namespace {

constexpr Read kPtr = Read::pointee_i32;
constexpr Read kInt = Read::value_i32;

// LAWN 41, xGETRF with k = min(m,n), M = max(m,n): M k^2 - k^3/3 - k^2/2 + 5k/6
// (2/3 n^3 for a square matrix, to leading order).
constexpr const char* kGetrf =
    "max(m,n)*min(m,n)^2 - min(m,n)^3/3 - min(m,n)^2/2 + 5*min(m,n)/6";
// LAWN 41, xPOTRF: n^3/3 + n^2/2 + n/6.
constexpr const char* kPotrf = "n^3/3 + n^2/2 + n/6";
// xGESV = xGETRF(n,n) + xGETRS: 2/3 n^3 - n^2/2 + 5n/6 + nrhs (2n^2 - n).
constexpr const char* kGesv = "2*n^3/3 - n^2/2 + 5*n/6 + nrhs*(2*n^2 - n)";

std::vector<Signature> make_table() {
  std::vector<Signature> t;
  for (const char* p : {"d", "s"}) {
    std::string x(p);
    // xGEMM(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
    t.push_back({x + "gemm_", {{"m", 2, kPtr}, {"n", 3, kPtr}, {"k", 4, kPtr}}, "2*m*n*k"});
    // xGEMV(trans, m, n, alpha, a, lda, x, incx, beta, y, incy)
    t.push_back({x + "gemv_", {{"m", 1, kPtr}, {"n", 2, kPtr}}, "2*m*n"});
    // xAXPY(n, alpha, x, incx, y, incy), xDOT(n, x, incx, y, incy), xSCAL(n, alpha, x, incx)
    t.push_back({x + "axpy_", {{"n", 0, kPtr}}, "2*n"});
    t.push_back({x + "dot_", {{"n", 0, kPtr}}, "2*n"});
    t.push_back({x + "scal_", {{"n", 0, kPtr}}, "n"});
    // xGETRF(m, n, a, lda, ipiv, info), xPOTRF(uplo, n, a, lda, info),
    // xGESV(n, nrhs, a, lda, ipiv, b, ldb, info)
    t.push_back({x + "getrf_", {{"m", 0, kPtr}, {"n", 1, kPtr}}, kGetrf});
    t.push_back({x + "potrf_", {{"n", 1, kPtr}}, kPotrf});
    t.push_back({x + "gesv_", {{"n", 0, kPtr}, {"nrhs", 1, kPtr}}, kGesv});
    // cblas_xgemm(order, transa, transb, M, N, K, alpha [xmm0], A, lda, B, ldb, beta, C, ldc)
    t.push_back({"cblas_" + x + "gemm", {{"m", 3, kInt}, {"n", 4, kInt}, {"k", 5, kInt}},
                 "2*m*n*k"});
    // cblas_xgemv(order, trans, M, N, alpha [xmm0], A, lda, X, incX, beta, Y, incY)
    t.push_back({"cblas_" + x + "gemv", {{"m", 2, kInt}, {"n", 3, kInt}}, "2*m*n"});
    // cblas_xaxpy(N, alpha [xmm0], X, incX, Y, incY), cblas_xdot(N, X, incX, Y, incY)
    t.push_back({"cblas_" + x + "axpy", {{"n", 0, kInt}}, "2*n"});
    t.push_back({"cblas_" + x + "dot", {{"n", 0, kInt}}, "2*n"});
  }
  return t;
}

}  // namespace

std::span<const Signature> builtin_signatures() {
  static const std::vector<Signature> table = make_table();
  return table;
}

const Signature* find_builtin(std::string_view function) {
  for (const auto& s : builtin_signatures())
    if (s.function == function) return &s;
  return nullptr;
}

}  // namespace roofprof::signatures
