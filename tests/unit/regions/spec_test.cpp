#include "regions/spec.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "common/error.hpp"

namespace roofprof::regions {
namespace {

TEST(Spec, Locations) {
  auto sym = parse_location("ns::Solver::step");
  EXPECT_EQ(sym.kind, Location::Kind::Symbol);
  auto line = parse_location("src/solver.c:120");
  EXPECT_EQ(line.kind, Location::Kind::FileLine);
  EXPECT_EQ(line.file, "src/solver.c");
  EXPECT_EQ(line.line, 120u);
  auto addr = parse_location("0x401136");
  EXPECT_EQ(addr.kind, Location::Kind::Address);
  EXPECT_EQ(addr.address, 0x401136u);
  auto mod = parse_location("libfoo.so+0x1a0");
  EXPECT_EQ(mod.kind, Location::Kind::Address);
  EXPECT_EQ(mod.module, "libfoo.so");
  EXPECT_EQ(mod.address, 0x1a0u);
  EXPECT_THROW(parse_location("file.c:abc"), UserError);
  EXPECT_THROW(parse_location(""), UserError);
}

TEST(Spec, Span) {
  auto s = parse_span("solve=solver.c:120..solver.c:180");
  EXPECT_EQ(s.kind, RegionKind::Span);
  EXPECT_EQ(s.name, "solve");
  EXPECT_EQ(s.start.line, 120u);
  EXPECT_EQ(s.stop.line, 180u);
  auto t = parse_span("phase=init_done..0x401000");
  EXPECT_EQ(t.start.symbol, "init_done");
  EXPECT_EQ(t.stop.kind, Location::Kind::Address);
  EXPECT_THROW(parse_span("solve"), UserError);
  EXPECT_THROW(parse_span("=a..b"), UserError);
  EXPECT_THROW(parse_span("x=a"), UserError);
}

TEST(Spec, LambdaNamesAreSymbols) {
  auto l = parse_location("main::lambda@prog.cpp:42");
  EXPECT_EQ(l.kind, Location::Kind::Symbol);
  EXPECT_EQ(l.symbol, "main::lambda@prog.cpp:42");
  EXPECT_EQ(parse_location("lambda@prog.cpp:42").kind, Location::Kind::Symbol);
  EXPECT_EQ(parse_region("ns::S::run::lambda@7").name, "ns::S::run::lambda@7");
  EXPECT_EQ(parse_location("mylambda@x.c:4").kind, Location::Kind::FileLine);  // not the keyword
  auto s = parse_span("l=main::lambda@prog.cpp:42..prog.cpp:50");
  EXPECT_EQ(s.start.kind, Location::Kind::Symbol);
  EXPECT_EQ(s.stop.kind, Location::Kind::FileLine);
}

TEST(Spec, FunctionRegionMustNameAFunction) {
  EXPECT_EQ(parse_region("fftw_execute*").name, "fftw_execute*");
  EXPECT_THROW(parse_region("file.c:10"), UserError);
}

}  // namespace
}  // namespace roofprof::regions

namespace roofprof::regions {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// A name longer than any symbol is refused before any symbol is read, in a
// line that does not repeat it.
TEST(Spec, NamesLongerThan4096BytesAreRefusedInOneShortLine) {
  EXPECT_EQ(parse_region(std::string(kMaxNameBytes, 'f')).name.size(), kMaxNameBytes);
  const std::string megabyte(1 << 20, 'f');
  for (const std::string& msg :
       {error_of([&] { parse_region(megabyte); }), error_of([&] { parse_span("s=" + megabyte + "..g"); }),
        error_of([&] { parse_span("s=f.." + megabyte); }), error_of([&] { parse_span(megabyte + "=f..g"); }),
        error_of([&] { parse_region(std::string(kMaxNameBytes + 1, 'f')); })}) {
    EXPECT_NE(msg.find("is longer than 4096 bytes, more than any symbol name"), std::string::npos) << msg.substr(0, 300);
    EXPECT_LT(msg.size(), 300u);
  }
}

}  // namespace
}  // namespace roofprof::regions
