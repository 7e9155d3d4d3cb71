// Names as gdb's linespecs know them, on tests/fixtures/run/signatures.cpp (each function is
// called a different number of times) and span lines on tests/fixtures/run/span_lines.c.
#include "harness.hpp"

namespace it {
namespace {

const char* kSignatures = "tests/fixtures/run/signatures.cpp";
const char* kSpanLines = "tests/fixtures/run/span_lines.c";

RunResult run_regions(Sandbox& sb, const std::vector<std::string>& regions) {
  std::vector<std::string> argv{"run", "--backend", "time"};
  for (const auto& r : regions) argv.insert(argv.end(), {"--region", r});
  argv.insert(argv.end(), {"--", fixture("run_signatures")});
  return sb.roofprof(argv);
}

// Calls of the region named `name` after running with `regions`; -1 when it is missing.
int64_t calls_of(const std::vector<std::string>& regions, const std::string& name) {
  Sandbox sb;
  auto r = run_regions(sb, regions);
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), name);
  return reg.is_null() ? -1 : calls(reg);
}

// The names after "closest names: " in a one-line error, unquoted.
std::vector<std::string> suggestions(const std::string& err) {
  std::vector<std::string> out;
  size_t at = err.find("closest names: ");
  if (at == std::string::npos) return out;
  for (size_t q = err.find('\'', at); q != std::string::npos; q = err.find('\'', q)) {
    size_t end = err.find("'", q + 1);
    if (end == std::string::npos) break;
    out.push_back(err.substr(q + 1, end - q - 1));
    q = end + 1;
  }
  return out;
}

void expect_one_line_error(const RunResult& r, const std::string& has) {
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find(has), std::string::npos) << has << r.diag();
}

TEST(Names, SignaturesWithPointersNameTheirOverload) {
  EXPECT_EQ(calls_of({"scale(float*,int)"}, "scale(float*,int)"), 3);
  EXPECT_EQ(calls_of({"scale(float *, int)"}, "scale(float *, int)"), 3);
  EXPECT_EQ(calls_of({"scale(float*)"}, "scale(float*)"), 2);
  EXPECT_EQ(calls_of({"scale(double*, int)"}, "scale(double*, int)"), 4);
  EXPECT_EQ(calls_of({"scale"}, "scale"), 3 + 4 + 2);  // a plain name covers every overload
}

TEST(Names, OverloadsStayApartInSummaryAndReport) {
  Sandbox sb;
  auto r = run_regions(sb, {"sca*"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "scale(float*, int)")), 3);
  EXPECT_EQ(calls(region(doc, "scale(double*, int)")), 4);
  EXPECT_EQ(calls(region(doc, "scale(float*)")), 2);
  for (const char* row : {"  scale(float*, int) (function): 3 calls", "  scale(double*, int) (function): 4 calls",
                          "  scale(float*) (function): 2 calls"})
    EXPECT_NE(r.err.find(row), std::string::npos) << row << r.diag();
  auto rep = sb.roofprof({"report", "roofprof.json"});
  ASSERT_EQ(rep.exit_code(), 0) << rep.diag();
  for (const char* row : {"\nscale(float*, int) ", "\nscale(double*, int) ", "\nscale(float*) "})
    EXPECT_NE(rep.out.find(row), std::string::npos) << row << rep.diag();
  // Two globs that each choose one overload by its signature give two names.
  Sandbox two;
  auto g = run_regions(two, {"s*e(float*, int)", "s*e(double*, int)"});
  ASSERT_EQ(g.exit_code(), 0) << g.diag();
  json gd = load_result(g);
  EXPECT_EQ(calls(region(gd, "scale(float*, int)")), 3);
  EXPECT_EQ(calls(region(gd, "scale(double*, int)")), 4);
}

TEST(Names, Operators) {
  EXPECT_EQ(calls_of({"Kernel::operator()"}, "Kernel::operator()"), 5);
  EXPECT_EQ(calls_of({"Kernel::operator()(int) const"}, "Kernel::operator()(int) const"), 5);
  EXPECT_EQ(calls_of({"operator+"}, "operator+"), 6);
}

TEST(Names, LambdaByEnclosingFunctionAndLine) {
  const int line = line_of(kSignatures, "// LAMBDA_LINE");
  ASSERT_GT(line, 0);
  const std::string name = "main::lambda@signatures.cpp:" + std::to_string(line);
  EXPECT_EQ(calls_of({name}, name), 7);
  Sandbox sb;
  auto wrong = run_regions(sb, {"main::lambda@signatures.cpp:" + std::to_string(line + 1)});
  expect_one_line_error(wrong, "closest names: ");
}

TEST(Names, SuggestionsAreAcceptedBack) {
  // A typo in an operator's name, and a case typo in a namespaced method: the first suggestion
  // is the function meant, and running with its text measures it.
  for (auto [typo, calls_meant] : {std::pair<std::string, int64_t>{"Kernel::operatr()", 5},
                                   std::pair<std::string, int64_t>{"PairLJcut::compute", 4}}) {
    Sandbox sb;
    auto r = run_regions(sb, {typo});
    expect_one_line_error(r, "closest names: ");
    auto near = suggestions(r.err);
    ASSERT_FALSE(near.empty()) << r.diag();
    EXPECT_EQ(calls_of({near[0]}, near[0]), calls_meant) << near[0];
  }
  Sandbox sb;
  auto r = run_regions(sb, {"PairLJcut::compute"});
  ASSERT_FALSE(suggestions(r.err).empty()) << r.diag();
  EXPECT_EQ(suggestions(r.err)[0], "LAMMPS_NS::PairLJCut::compute");
}

TEST(Names, GlobsMatchAtAnyScope) {
  Sandbox sb;
  auto r = run_regions(sb, {"NPair*::build", "PairLJCut::*"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "LAMMPS_NS::NPairHalf::build")), 2);
  EXPECT_EQ(calls(region(doc, "LAMMPS_NS::NPairFull::build")), 3);
  EXPECT_EQ(calls(region(doc, "LAMMPS_NS::PairLJCut::compute")), 4);
  EXPECT_EQ(calls(region(doc, "LAMMPS_NS::PairLJCut::settings")), 1);
  auto sym = sb.roofprof({"symbols", "--match", "NPair*::build", "--", fixture("run_signatures")});
  ASSERT_EQ(sym.exit_code(), 0) << sym.diag();
  EXPECT_NE(sym.out.find("LAMMPS_NS::NPairHalf::build(int)"), std::string::npos) << sym.diag();
  EXPECT_NE(sym.out.find("LAMMPS_NS::NPairFull::build(int)"), std::string::npos) << sym.diag();
  EXPECT_NE(sym.err.find("2 functions in"), std::string::npos) << sym.diag();
}

std::string span_line(const char* marker, int offset = 0) {
  return "span_lines.c:" + std::to_string(line_of(kSpanLines, marker) + offset);
}

RunResult run_span(Sandbox& sb, const std::string& start, const std::string& stop) {
  return sb.roofprof({"run", "--backend", "time", "--span", "s=" + start + ".." + stop, "--",
                      fixture("run_span_lines")});
}

TEST(Names, SpanEndingOnABlankLineEndsInItsFunction) {
  Sandbox sb;
  auto r = run_span(sb, span_line("INNER_START"), span_line("INNER_BLANK_NEXT", 1));
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "s");
  EXPECT_EQ(calls(reg), 4) << reg.dump();
  EXPECT_EQ(closed_by(reg, "span_stop"), 4) << reg.dump();
}

TEST(Names, SpanEndingOnABlankLineBeforeAnotherFunctionIsAnError) {
  Sandbox sb;
  auto r = run_span(sb, span_line("INNER_START"), span_line("BETWEEN_NEXT", 1));
  expect_one_line_error(r, span_line("BETWEEN_NEXT", 1) + " has no code");
  EXPECT_NE(r.err.find("is in outer, not in inner"), std::string::npos) << r.diag();
  EXPECT_EQ(r.out.find("s="), std::string::npos) << "the program should not have run" << r.diag();
}

TEST(Names, ReversedSpanIsAnError) {
  Sandbox sb;
  auto r = run_span(sb, span_line("INNER_NEXT_CODE"), span_line("INNER_START"));
  expect_one_line_error(r, "span 's' is reversed");
}

}  // namespace
}  // namespace it
