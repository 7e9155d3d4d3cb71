#include "signatures/expr.hpp"

#include <cctype>
#include <cmath>
#include <set>

#include "common/error.hpp"

namespace roofprof::signatures {

struct Expr::Node {
  enum class Kind { number, name, neg, add, sub, mul, div, pow, call } kind;
  double number = 0;
  std::string name;  // variable or function
  std::vector<std::shared_ptr<const Node>> args;
};

namespace {

using NodePtr = std::shared_ptr<const Expr::Node>;
using Kind = Expr::Node::Kind;

struct Function {
  const char* name;
  size_t arity;
};
constexpr Function kFunctions[] = {{"log2", 1}, {"ln", 1},  {"sqrt", 1},
                                   {"abs", 1},  {"min", 2}, {"max", 2}};

class Parser {
 public:
  explicit Parser(std::string_view text) : s_(text) {}

  NodePtr parse() {
    NodePtr e = sum();
    skip_blanks();
    if (pos_ != s_.size()) fail("unexpected '" + std::string(1, s_[pos_]) + "'");
    return e;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw UserError("expression '" + std::string(s_) + "': " + what + " at position " +
                    std::to_string(pos_ + 1));
  }
  void skip_blanks() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool eat(char c) {
    skip_blanks();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  static NodePtr make(Kind k, std::vector<NodePtr> args, std::string name = {}, double v = 0) {
    return std::make_shared<const Expr::Node>(Expr::Node{k, v, std::move(name), std::move(args)});
  }

  NodePtr sum() {
    NodePtr left = product();
    for (;;) {
      if (eat('+')) left = make(Kind::add, {left, product()});
      else if (eat('-')) left = make(Kind::sub, {left, product()});
      else return left;
    }
  }
  NodePtr product() {
    NodePtr left = unary();
    for (;;) {
      if (eat('*')) left = make(Kind::mul, {left, unary()});
      else if (eat('/')) left = make(Kind::div, {left, unary()});
      else return left;
    }
  }
  NodePtr unary() {
    if (eat('-')) return make(Kind::neg, {unary()});
    if (eat('+')) return unary();
    NodePtr base = primary();
    if (eat('^')) return make(Kind::pow, {base, unary()});  // right associative
    return base;
  }
  NodePtr primary() {
    skip_blanks();
    if (pos_ >= s_.size()) fail("expression ends early");
    char c = s_[pos_];
    if (eat('(')) {
      NodePtr e = sum();
      if (!eat(')')) fail("missing ')'");
      return e;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') return number();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return name_or_call();
    fail("unexpected '" + std::string(1, c) + "'");
  }
  NodePtr number() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
      ++pos_;
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) {
        while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      } else {
        pos_ = save;
      }
    }
    std::string text(s_.substr(start, pos_ - start));
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text == "." || end != text.c_str() + text.size()) {
      pos_ = start;
      fail("bad number '" + text + "'");
    }
    return make(Kind::number, {}, {}, v);
  }
  NodePtr name_or_call() {
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
      ++pos_;
    std::string name(s_.substr(start, pos_ - start));
    if (!eat('(')) return make(Kind::name, {}, name);
    const Function* f = nullptr;
    for (const auto& candidate : kFunctions)
      if (name == candidate.name) f = &candidate;
    if (!f) {
      pos_ = start;
      fail("unknown function '" + name + "' (known: log2, ln, sqrt, abs, min, max)");
    }
    std::vector<NodePtr> args{sum()};
    while (eat(',')) args.push_back(sum());
    if (!eat(')')) fail("missing ')'");
    if (args.size() != f->arity)
      fail(name + " takes " + std::to_string(f->arity) + " argument" + (f->arity > 1 ? "s" : ""));
    return make(Kind::call, std::move(args), name);
  }

  std::string_view s_;
  size_t pos_ = 0;
};

double evaluate(const Expr::Node& n, const std::map<std::string, double>& params,
                const std::string& text) {
  auto arg = [&](size_t i) { return evaluate(*n.args[i], params, text); };
  switch (n.kind) {
    case Kind::number: return n.number;
    case Kind::name: {
      auto it = params.find(n.name);
      if (it != params.end()) return it->second;
      std::string known;
      for (const auto& [k, v] : params) known += (known.empty() ? "" : ", ") + k;
      throw UserError("expression '" + text + "': no parameter '" + n.name + "' (known: " +
                      (known.empty() ? "none" : known) + ")");
    }
    case Kind::neg: return -arg(0);
    case Kind::add: return arg(0) + arg(1);
    case Kind::sub: return arg(0) - arg(1);
    case Kind::mul: return arg(0) * arg(1);
    case Kind::div: return arg(0) / arg(1);
    case Kind::pow: return std::pow(arg(0), arg(1));
    case Kind::call:
      if (n.name == "log2") return std::log2(arg(0));
      if (n.name == "ln") return std::log(arg(0));
      if (n.name == "sqrt") return std::sqrt(arg(0));
      if (n.name == "abs") return std::fabs(arg(0));
      if (n.name == "min") return std::min(arg(0), arg(1));
      return std::max(arg(0), arg(1));
  }
  return NAN;
}

void collect(const Expr::Node& n, std::set<std::string>& out) {
  if (n.kind == Kind::name) out.insert(n.name);
  for (const auto& a : n.args) collect(*a, out);
}

}  // namespace

Expr Expr::parse(std::string_view text) {
  Expr e;
  e.text_ = std::string(text);
  e.root_ = Parser(e.text_).parse();
  return e;
}

double Expr::eval(const std::map<std::string, double>& params) const {
  return evaluate(*root_, params, text_);
}

std::vector<std::string> Expr::names() const {
  std::set<std::string> out;
  collect(*root_, out);
  return {out.begin(), out.end()};
}

}  // namespace roofprof::signatures
