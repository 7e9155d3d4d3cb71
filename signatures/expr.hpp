#pragma once
// Small arithmetic expressions over named parameters, for work formulas
// (`--work 'dgemm_=2*m*n*k'`, `5*n*log2(n)`): numbers, names, + - * / ^ (power, right
// associative), unary minus, parentheses, and the functions log2, ln, sqrt, abs, min, max.
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::signatures {

class Expr {
 public:
  // Throws UserError naming the text and the position on a syntax error.
  static Expr parse(std::string_view text);

  // Value for these parameters; throws UserError when a name is not among them.
  double eval(const std::map<std::string, double>& params) const;
  // Names the expression uses, sorted, without duplicates.
  std::vector<std::string> names() const;
  const std::string& text() const { return text_; }

  struct Node;

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace roofprof::signatures
