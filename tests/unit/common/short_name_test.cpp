// common/short_name.h: the one short-name implementation the agent (preload/agent/match.c) and
// the planner (symbolizer::short_name) share. The cases below are those where the agent's own
// copy and the planner's used to differ.
#include "common/short_name.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

std::optional<std::string> short_of(const std::string& s, size_t cap = 0) {
  std::string out(cap ? cap : s.size() + 1, '\0');
  size_t n = rp_short_name(s.data(), s.size(), out.data(), out.size());
  if (n == static_cast<size_t>(-1)) return std::nullopt;
  EXPECT_EQ(out[n], '\0');
  return out.substr(0, n);
}

TEST(SharedShortName, KeepsCloneSuffixes) {
  EXPECT_EQ(short_of("ns::f(int) [clone .cold]"), "ns::f [clone .cold]");
  EXPECT_EQ(short_of("ns::f(int) [clone .constprop.0] [clone .isra.0]"),
            "ns::f [clone .constprop.0] [clone .isra.0]");
  EXPECT_EQ(short_of("void scale<float>(float*, int) [clone .constprop.0]"), "scale<float> [clone .constprop.0]");
}

TEST(SharedShortName, OnlyWholeQualifiersMayFollowTheParameters) {
  EXPECT_EQ(short_of("ns::S::get() const volatile && noexcept"), "ns::S::get");
  // The agent's copy accepted any run of the letters of the qualifiers.
  EXPECT_EQ(short_of("ns::S::get() nonsense"), std::nullopt);
  EXPECT_EQ(short_of("ns::S::get() cost"), std::nullopt);
}

TEST(SharedShortName, ConversionOperators) {
  // The agent's copy cut these at the conversion type's last space ("long").
  EXPECT_EQ(short_of("ns::V::operator unsigned long() const"), "ns::V::operator unsigned long");
  EXPECT_EQ(short_of("ns::V::operator std::vector<int, std::allocator<int> >() const"),
            "ns::V::operator std::vector<int, std::allocator<int> >");
}

TEST(SharedShortName, OperatorsAndTemplates) {
  EXPECT_EQ(short_of("bool ns::operator< <int>(ns::A<int> const&, ns::A<int> const&)"), "ns::operator< <int>");
  EXPECT_EQ(short_of("operator delete[](void*)"), "operator delete[]");
  EXPECT_EQ(short_of("ns::V::operator()(int) const"), "ns::V::operator()");
  EXPECT_EQ(short_of("ns::operator_x(int)"), "ns::operator_x");
  EXPECT_EQ(short_of("std::__cxx11::basic_string<char> ns::name[abi:cxx11](int)"), "ns::name");
}

TEST(SharedShortName, NoParameterListIsNoShortName) {
  EXPECT_EQ(short_of("dgemm_"), std::nullopt);
  EXPECT_EQ(short_of("vtable for ns::S"), std::nullopt);
  EXPECT_EQ(short_of("(int)"), std::nullopt);
}

TEST(SharedShortName, TooSmallABufferIsNoShortName) {
  EXPECT_EQ(short_of("ns::f(int)", 5), std::nullopt);
  EXPECT_EQ(short_of("ns::f(int)", 6), "ns::f");
  EXPECT_EQ(short_of("ns::f(int) [clone .cold]", 6), std::nullopt);
}

TEST(SharedShortName, SkipOperatorNeedsTheWholeKeyword) {
  const std::string s = "a::operator<<(int)";
  EXPECT_EQ(rp_skip_operator(s.data(), s.size(), 3), 13u);
  const std::string t = "xoperator<(int)";
  EXPECT_EQ(rp_skip_operator(t.data(), t.size(), 1), 1u);
}

}  // namespace
