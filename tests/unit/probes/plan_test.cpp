// Planner: span lines (tests/fixtures/run/span_lines.c); signatures, operators and globs over
// overloads (tests/fixtures/run/signatures.cpp).
#include "probes/plan.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.hpp"
#include "regions/spec.hpp"

namespace roofprof::probes {
namespace {

std::string fixture(const std::string& name) { return std::string(FIXTURES_DIR) + "/" + name; }

unsigned line_of(const std::string& marker) {
  std::ifstream in(std::string(SOURCE_DIR) + "/tests/fixtures/run/span_lines.c");
  std::string text;
  for (unsigned n = 1; std::getline(in, text); ++n)
    if (text.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "no marker " << marker;
  return 0;
}

std::string at(unsigned line) { return "span_lines.c:" + std::to_string(line); }

// The addresses of the span's STOP sites.
std::vector<uint64_t> stops(const std::string& span) {
  auto elf = symbolizer::ElfFile::open(fixture("run_span_lines"));
  Planner planner({regions::parse_span(span)});
  std::vector<uint64_t> out;
  for (const auto& p : planner.probes_for(*elf, true))
    if (p.role == SiteRole::SpanStop) out.push_back(p.address);
  return out;
}

std::string error_of(const std::string& span) {
  try {
    stops(span);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(PlanSpans, StopOnABlankLineMovesToTheNextLineWithCodeInItsFunction) {
  const unsigned start = line_of("INNER_START"), blank = line_of("INNER_BLANK_NEXT") + 1;
  const unsigned next = line_of("INNER_NEXT_CODE");
  auto moved = stops("s=" + at(start) + ".." + at(blank));
  ASSERT_FALSE(moved.empty());
  EXPECT_EQ(moved, stops("s=" + at(start) + ".." + at(next)));
}

TEST(PlanSpans, StopOnABlankLineBeforeAnotherFunctionIsAnError) {
  const unsigned start = line_of("INNER_START"), blank = line_of("BETWEEN_NEXT") + 1;
  std::string e = error_of("s=" + at(start) + ".." + at(blank));
  EXPECT_NE(e.find(at(blank) + " has no code"), std::string::npos) << e;
  EXPECT_NE(e.find("is in outer, not in inner"), std::string::npos) << e;
  // START too.
  e = error_of("s=" + at(blank) + ".." + at(line_of("OUTER_BODY")));
  EXPECT_NE(e.find(at(blank) + " has no code"), std::string::npos) << e;
}

TEST(PlanSpans, ReversedSpanIsAnError) {
  const unsigned start = line_of("INNER_START"), next = line_of("INNER_NEXT_CODE");
  std::string e = error_of("s=" + at(next) + ".." + at(start));
  EXPECT_NE(e.find("span 's' is reversed: STOP " + at(start) + " comes before START " + at(next) + " in inner"),
            std::string::npos)
      << e;
  // STOP above START but in another function is a span across functions, not reversed.
  EXPECT_EQ(error_of("s=" + at(line_of("OUTER_BODY")) + ".." + at(start)), "");
}

// tests/fixtures/run/signatures.cpp: a signature with '*' and an operator are plain names (one
// region each, as written); a glob over overloads is one region per overload, named with its
// signature.
TEST(PlanNames, SignaturesAndOperatorsAreNamesGlobsKeepSignatures) {
  auto elf = symbolizer::ElfFile::open(fixture("run_signatures"));
  Planner planner({regions::parse_region("scale(float*,int)"), regions::parse_region("Kernel::operator()"),
                   regions::parse_region("sca*")});
  planner.probes_for(*elf, true);
  std::vector<std::string> names;
  for (const auto& r : planner.regions()) {
    names.push_back(r.name);
    EXPECT_EQ(r.sites.size(), 1u) << r.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"scale(float*,int)", "Kernel::operator()", "scale(double*, int)",
                                             "scale(float*)", "scale(float*, int)"}));
}

}  // namespace
}  // namespace roofprof::probes
