#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "signatures/signatures.hpp"

namespace roofprof::signatures {
namespace {

double eval(const char* text, std::map<std::string, double> p = {}) {
  return Expr::parse(text).eval(p);
}

TEST(Expr, Arithmetic) {
  EXPECT_EQ(eval("2*m*n*k", {{"m", 3}, {"n", 4}, {"k", 5}}), 120);
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 4 - 3"), 3);    // left associative
  EXPECT_EQ(eval("2 ^ 3 ^ 2"), 512);   // right associative
  EXPECT_EQ(eval("-2^2"), -4);
  EXPECT_EQ(eval("8 / 2 / 2"), 2);
  EXPECT_EQ(eval("1.5e3 + .5"), 1500.5);
  EXPECT_EQ(eval("5*n*log2(n)", {{"n", 1024}}), 5 * 1024 * 10);
  EXPECT_EQ(eval("min(a, b) + max(a, b)", {{"a", 2}, {"b", 7}}), 9);
  EXPECT_EQ(eval("sqrt(16) + abs(-1) + ln(1)"), 5);
}

TEST(Expr, Names) {
  EXPECT_EQ(Expr::parse("2*m*n*k + m").names(), (std::vector<std::string>{"k", "m", "n"}));
}

TEST(Expr, ErrorsNameTheProblem) {
  auto message = [](const char* text) {
    try {
      Expr::parse(text);
    } catch (const UserError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(message("2*"), "expression '2*': expression ends early at position 3");
  EXPECT_EQ(message("(m+1"), "expression '(m+1': missing ')' at position 5");
  EXPECT_EQ(message("m n"), "expression 'm n': unexpected 'n' at position 3");
  EXPECT_EQ(message("log(n)"),
            "expression 'log(n)': unknown function 'log' (known: log2, ln, sqrt, abs, min, max) "
            "at position 1");
  EXPECT_EQ(message("min(n)"), "expression 'min(n)': min takes 2 arguments at position 7");
  EXPECT_EQ(message("2$"), "expression '2$': unexpected '$' at position 2");
  try {
    eval("2*m*q", {{"m", 1}, {"n", 2}});
    FAIL();
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(), "expression '2*m*q': no parameter 'q' (known: m, n)");
  }
}

TEST(UserSpec, ParsesEveryArgumentForm) {
  Signature s = parse_user_signature("solve_:n=*arg0, nrhs=*arg1:i64, count=arg2:i32, len=arg7");
  EXPECT_EQ(s.function, "solve_");
  ASSERT_EQ(s.params.size(), 4u);
  EXPECT_EQ(s.params[0].read, Read::pointee_i32);
  EXPECT_EQ(s.params[1].read, Read::pointee_i64);
  EXPECT_EQ(s.params[2].read, Read::value_i32);
  EXPECT_EQ(s.params[3].read, Read::value_i64);
  EXPECT_EQ(s.params[3].arg, 7);
  EXPECT_EQ(s.params[1].name, "nrhs");
}

TEST(UserSpec, RejectsMalformedSpecs) {
  for (const char* bad : {"solve_", ":n=arg0", "solve_:", "solve_:n", "solve_:n=x0",
                          "solve_:n=arg", "solve_:n=arg0:u8", "solve_:1n=arg0",
                          "solve_:n=arg0,n=arg1", "solve_:n=arg99"})
    EXPECT_THROW(parse_user_signature(bad), UserError) << bad;
}

TEST(WorkOption, SplitsAtTheFirstEquals) {
  WorkFormula w = parse_work_option("fftw_execute = 5*n*log2(n)");
  EXPECT_EQ(w.function, "fftw_execute");
  EXPECT_EQ(w.expr.eval({{"n", 8}}), 120);
  EXPECT_THROW(parse_work_option("dgemm_"), UserError);
  EXPECT_THROW(parse_work_option("=2*n"), UserError);
  EXPECT_THROW(parse_work_option("dgemm_="), UserError);
  EXPECT_THROW(parse_work_option("dgemm_=2**n"), UserError);
}

}  // namespace
}  // namespace roofprof::signatures
