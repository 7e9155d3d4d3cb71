// Decoding the arguments of real call shapes under the x86-64 System V ABI.
#include <gtest/gtest.h>

#include <cmath>

#include "signatures/signatures.hpp"
#include "tests/unit/signatures/fake_reader.hpp"

namespace roofprof::signatures {
namespace {

using testing::FakeThread;

// Addresses of the caller's variables in the simulated program (a Fortran caller passes every
// argument by reference).
constexpr uint64_t kTransA = 0x5555'0000'2000, kTransB = 0x5555'0000'2001;
constexpr uint64_t kM = 0x7ffd'0000'2000, kN = 0x7ffd'0000'2004, kK = 0x7ffd'0000'2008;
constexpr uint64_t kAlpha = 0x7ffd'0000'2010, kBeta = 0x7ffd'0000'2018;
constexpr uint64_t kLda = 0x7ffd'0000'2020, kLdb = 0x7ffd'0000'2024, kLdc = 0x7ffd'0000'2028;
constexpr uint64_t kA = 0x7f00'0000'0000, kB = 0x7f00'1000'0000, kC = 0x7f00'2000'0000;

void put_i32(FakeThread& t, uint64_t addr, int32_t v) { t.map(addr, &v, sizeof v); }

// CALL DGEMM('N', 'T', M, N, K, ALPHA, A, LDA, B, LDB, BETA, C, LDC) compiled by gfortran:
// 13 pointers plus two hidden string lengths; the 7th argument on is on the stack.
FakeThread fortran_dgemm_call(int32_t m, int32_t n, int32_t k) {
  FakeThread t;
  t.regs[0] = kTransA;  // rdi
  t.regs[1] = kTransB;  // rsi
  t.regs[2] = kM;       // rdx
  t.regs[3] = kN;       // rcx
  t.regs[4] = kK;       // r8
  t.regs[5] = kAlpha;   // r9
  // a, &lda, b, &ldb, &beta, c, &ldc, len(transa), len(transb)
  t.push_call_frame({kA, kLda, kB, kLdb, kBeta, kC, kLdc, 1, 1}, 0x5555'0000'1234);
  t.map(kTransA, "NT", 2);
  put_i32(t, kM, m);
  put_i32(t, kN, n);
  put_i32(t, kK, k);
  put_i32(t, kLda, m);
  put_i32(t, kLdb, n);
  put_i32(t, kLdc, m);
  double alpha = 1, beta = 0;
  t.map(kAlpha, &alpha, 8);
  t.map(kBeta, &beta, 8);
  return t;
}

TEST(Decode, FortranDgemmReadsSizesThroughPointers) {
  FakeThread t = fortran_dgemm_call(200, 300, 400);
  const Signature* sig = find_builtin("dgemm_");
  ASSERT_NE(sig, nullptr);
  auto d = decode(*sig, t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->key, "m=200,n=300,k=400");
  ASSERT_EQ(d->params.size(), 3u);
  EXPECT_EQ(d->params[0], (std::pair<std::string, int64_t>{"m", 200}));
  EXPECT_EQ(d->params[2], (std::pair<std::string, int64_t>{"k", 400}));
  EXPECT_EQ(d->expected_work, 2.0 * 200 * 300 * 400);
  EXPECT_EQ(d->param_map().at("n"), 300.0);
}

TEST(Decode, StackArgumentsStartAboveTheReturnAddress) {
  FakeThread t = fortran_dgemm_call(10, 20, 30);
  // arg 6 is A (at [rsp+8]), arg 7 is &lda ([rsp+16]), arg 12 is &ldc ([rsp+56]).
  EXPECT_EQ(integer_arg(t, 6), kA);
  EXPECT_EQ(integer_arg(t, 7), kLda);
  EXPECT_EQ(integer_arg(t, 12), kLdc);
  EXPECT_EQ(integer_arg(t, 14), 1u);  // hidden length of transb
  EXPECT_EQ(integer_arg(t, 15), std::nullopt);  // beyond the mapped frame
  Signature lds = parse_user_signature("dgemm_:lda=*arg7,ldb=*arg9,ldc=*arg12");
  auto d = decode(lds, t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->key, "lda=10,ldb=20,ldc=10");
  EXPECT_EQ(d->expected_work, std::nullopt);  // user signatures carry no formula
}

TEST(Decode, UnreadablePointerIsNoDecode) {
  FakeThread t = fortran_dgemm_call(1, 2, 3);
  t.regs[4] = 0x10;  // k points nowhere
  EXPECT_EQ(decode(*find_builtin("dgemm_"), t), std::nullopt);
}

// cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
// beta, C, ldc): alpha and beta go to xmm0/xmm1, so M, N, K are rcx, r8, r9 by value and A is
// the 7th integer argument.
TEST(Decode, CblasDgemmTakesSizesByValueAndSkipsFloatingArguments) {
  FakeThread t;
  t.regs[0] = 102;  // CblasColMajor
  t.regs[1] = 111;  // CblasNoTrans
  t.regs[2] = 112;  // CblasTrans
  t.regs[3] = 0xdead'beef'0000'0064;  // M = 100 in the low 32 bits; the upper half is garbage
  t.regs[4] = 50;
  t.regs[5] = 25;
  t.push_call_frame({kA, 100, kB, 25, kC, 100}, 0x4011d0);
  auto d = decode(*find_builtin("cblas_dgemm"), t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->key, "m=100,n=50,k=25");
  EXPECT_EQ(d->expected_work, 2.0 * 100 * 50 * 25);
  EXPECT_EQ(integer_arg(t, 6), kA);
  EXPECT_EQ(integer_arg(t, 7), 100u);  // lda
}

TEST(Decode, Level1AndLevel2) {
  FakeThread t;
  put_i32(t, kM, 1000);
  put_i32(t, kN, 500);
  t.regs[0] = kM;  // daxpy_(n, alpha, x, incx, y, incy)
  auto axpy = decode(*find_builtin("daxpy_"), t);
  ASSERT_TRUE(axpy);
  EXPECT_EQ(axpy->key, "n=1000");
  EXPECT_EQ(axpy->expected_work, 2000.0);
  EXPECT_EQ(decode(*find_builtin("ddot_"), t)->expected_work, 2000.0);
  t.regs[1] = kM;  // dgemv_(trans, m, n, ...)
  t.regs[2] = kN;
  auto gemv = decode(*find_builtin("sgemv_"), t);
  ASSERT_TRUE(gemv);
  EXPECT_EQ(gemv->key, "m=1000,n=500");
  EXPECT_EQ(gemv->expected_work, 1e6);
  t.regs[0] = 7;  // cblas_daxpy(N, alpha [xmm0], X, incX, Y, incY)
  EXPECT_EQ(decode(*find_builtin("cblas_daxpy"), t)->key, "n=7");
  t.regs[2] = 30;  // cblas_dgemv(order, trans, M, N, ...)
  t.regs[3] = 40;
  EXPECT_EQ(decode(*find_builtin("cblas_dgemv"), t)->key, "m=30,n=40");
}

TEST(Decode, LapackFactorizationsUseLawn41Counts) {
  FakeThread t;
  put_i32(t, kM, 300);
  put_i32(t, kN, 300);
  t.regs[0] = kM;  // dgetrf_(m, n, a, lda, ipiv, info)
  t.regs[1] = kN;
  auto getrf = decode(*find_builtin("dgetrf_"), t);
  ASSERT_TRUE(getrf);
  EXPECT_EQ(getrf->key, "m=300,n=300");
  const double n = 300;
  EXPECT_NEAR(*getrf->expected_work, 2 * n * n * n / 3 - n * n / 2 + 5 * n / 6, 1e-6);
  // dpotrf_(uplo, n, a, lda, info): n is the second argument.
  auto potrf = decode(*find_builtin("dpotrf_"), t);
  ASSERT_TRUE(potrf);
  EXPECT_EQ(potrf->key, "n=300");
  EXPECT_NEAR(*potrf->expected_work, n * n * n / 3 + n * n / 2 + n / 6, 1e-6);
  // A tall matrix: min/max pick k = n.
  put_i32(t, kM, 1000);
  put_i32(t, kN, 10);
  EXPECT_NEAR(*decode(*find_builtin("dgetrf_"), t)->expected_work,
              1000.0 * 100 - 1000.0 / 3 - 50 + 50.0 / 6, 1e-6);
}

TEST(Decode, EveryRequiredBuiltinExistsWithAFormula) {
  for (const char* f : {"dgemm_", "sgemm_", "dgemv_", "sgemv_", "daxpy_", "saxpy_", "ddot_",
                        "cblas_dgemm", "cblas_sgemm", "cblas_dgemv", "cblas_daxpy", "dgetrf_",
                        "dpotrf_"}) {
    const Signature* s = find_builtin(f);
    ASSERT_NE(s, nullptr) << f;
    EXPECT_FALSE(s->work.empty()) << f;
    std::map<std::string, double> ones;
    for (const auto& p : s->params) ones[p.name] = 10;
    EXPECT_GT(Expr::parse(s->work).eval(ones), 0) << f;
  }
  EXPECT_EQ(find_builtin("dgemm"), nullptr);
  EXPECT_EQ(find_builtin("printf"), nullptr);
}

TEST(Decode, PointeeI64ForIlp64Builds) {
  FakeThread t;
  int64_t n = int64_t(1) << 33;
  t.map(kN, &n, 8);
  t.regs[0] = kN;
  auto d = decode(parse_user_signature("daxpy_64_:n=*arg0:i64"), t);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->key, "n=8589934592");
}

}  // namespace
}  // namespace roofprof::signatures
