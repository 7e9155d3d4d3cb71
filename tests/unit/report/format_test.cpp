#include "report/format.hpp"

#include <gtest/gtest.h>

#include "report/text_table.hpp"

namespace roofprof::report {
namespace {

TEST(Format, Sig3) {
  EXPECT_EQ(sig3(0), "0");
  EXPECT_EQ(sig3(3.14159), "3.14");
  EXPECT_EQ(sig3(31.4159), "31.4");
  EXPECT_EQ(sig3(314.159), "314");
  EXPECT_EQ(sig3(3141.59), "3142");
  EXPECT_EQ(sig3(9.996), "10.0");  // rounding moves to the next decade
  EXPECT_EQ(sig3(99.96), "100");
  EXPECT_EQ(sig3(-2.5), "-2.50");
}

TEST(Format, Seconds) {
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_seconds(1.5), "1.50 s");
  EXPECT_EQ(format_seconds(1234.5), "1234 s");
  EXPECT_EQ(format_seconds(0.532), "532 ms");
  EXPECT_EQ(format_seconds(0.99996), "1.00 s");
  EXPECT_EQ(format_seconds(5.314e-3), "5.31 ms");
  EXPECT_EQ(format_seconds(2.3e-5), "23.0 us");
  EXPECT_EQ(format_seconds(6.02e-7), "602 ns");
  EXPECT_EQ(format_seconds(1e-9), "1.00 ns");
}

TEST(Format, SiPrefixes) {
  EXPECT_EQ(format_si(512, "B"), "512 B");
  EXPECT_EQ(format_si(0, "B"), "0 B");
  EXPECT_EQ(format_si(12.5, ""), "12.5");
  EXPECT_EQ(format_si(999.6, "B"), "1.00 kB");
  EXPECT_EQ(format_si(2e9, "B"), "2.00 GB");
  EXPECT_EQ(format_si(2e11, ""), "200 G");
  EXPECT_EQ(format_si(1.5e21, "B"), "1500 EB");  // beyond the largest prefix
}

TEST(Format, CountsAndMsec) {
  EXPECT_EQ(format_count(0), "0");
  EXPECT_EQ(format_count(999), "999");
  EXPECT_EQ(format_count(1000), "1,000");
  EXPECT_EQ(format_count(1234567.4), "1,234,567");
  EXPECT_EQ(format_count(-1234), "-1,234");
  EXPECT_EQ(format_count(18446744073709551615.0), "18,446,744,073,709,551,616");
  EXPECT_EQ(format_msec(12345678), "12.35");
  EXPECT_EQ(format_msec(11987654321.5), "11,987.65");
  EXPECT_EQ(format_msec(0), "0.00");
}

TEST(TextTable, AlignsColumnsAndTrims) {
  TextTable t({{"name", TextTable::Align::Left}, {"n", TextTable::Align::Right}, {"note"}});
  t.add_row({"a", "1", ""});
  t.add_row({"größe", "12345"});  // UTF-8 counts one column per code point; missing cell empty
  EXPECT_EQ(t.render("> "),
            "> name       n  note\n"
            "> a          1\n"
            "> größe  12345\n");
  EXPECT_THROW(t.add_row({"1", "2", "3", "4"}), std::logic_error);
}

}  // namespace
}  // namespace roofprof::report
