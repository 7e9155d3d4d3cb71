#include "symbolizer/demangle.hpp"

#include <gtest/gtest.h>

namespace roofprof::symbolizer {
namespace {

TEST(Demangle, CNamesStayAsTheyAre) {
  EXPECT_EQ(demangle("dgemm_"), "dgemm_");
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle("_Znot_valid!"), "_Znot_valid!");
}

TEST(Demangle, ItaniumNames) {
  EXPECT_EQ(demangle("_ZN2ns6Solver4stepEi"), "ns::Solver::step(int)");
  EXPECT_EQ(demangle("_ZN2ns5twiceIiEET_S1_"), "int ns::twice<int>(int)");
}

TEST(ShortName, DropsParametersQualifiersAndReturnType) {
  EXPECT_EQ(short_name("ns::Solver::step(int)"), "ns::Solver::step");
  EXPECT_EQ(short_name("ns::Solver::value() const"), "ns::Solver::value");
  EXPECT_EQ(short_name("ns::S::get() const &&"), "ns::S::get");
  EXPECT_EQ(short_name("int ns::twice<int>(int)"), "ns::twice<int>");
  EXPECT_EQ(short_name("std::vector<int, std::allocator<int> > ns::make<int>(unsigned long)"),
            "ns::make<int>");
  EXPECT_EQ(short_name("ns::Foo<unsigned int>::bar(char const*)"), "ns::Foo<unsigned int>::bar");
}

TEST(ShortName, AnonymousNamespacesAndLambdas) {
  EXPECT_EQ(short_name("(anonymous namespace)::helper(int)"), "(anonymous namespace)::helper");
  EXPECT_EQ(short_name("(anonymous namespace)::table"), "(anonymous namespace)::table");
  EXPECT_EQ(short_name("ns::f()::{lambda(int)#1}::operator()(int) const"),
            "ns::f()::{lambda(int)#1}::operator()");
}

TEST(ShortName, Operators) {
  EXPECT_EQ(short_name("ns::V::operator<(ns::V const&) const"), "ns::V::operator<");
  EXPECT_EQ(short_name("ns::V::operator<<(int)"), "ns::V::operator<<");
  EXPECT_EQ(short_name("ns::V::operator->()"), "ns::V::operator->");
  EXPECT_EQ(short_name("ns::V::operator[](unsigned long)"), "ns::V::operator[]");
  EXPECT_EQ(short_name("operator new(unsigned long)"), "operator new");
  EXPECT_EQ(short_name("operator delete[](void*)"), "operator delete[]");
  EXPECT_EQ(short_name("ns::V::operator unsigned long() const"), "ns::V::operator unsigned long");
  EXPECT_EQ(short_name("bool ns::operator< <int>(ns::A<int> const&, ns::A<int> const&)"),
            "ns::operator< <int>");
}

TEST(ShortName, DropsAbiTags) {
  EXPECT_EQ(short_name("ns::S::name[abi:cxx11]() const"), "ns::S::name");
  EXPECT_EQ(short_name("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
                       "ns::f[abi:cxx11]<int>(int)"),
            "ns::f<int>");
}

TEST(ShortName, KeepsCloneSuffixes) {
  EXPECT_EQ(short_name("ns::f(int) [clone .cold]"), "ns::f [clone .cold]");
  EXPECT_EQ(short_name("ns::f(int) [clone .constprop.0] [clone .isra.0]"),
            "ns::f [clone .constprop.0] [clone .isra.0]");
}

TEST(ShortName, NamesWithoutParameterListAreUnchanged) {
  EXPECT_EQ(short_name("dgemm_"), "dgemm_");
  EXPECT_EQ(short_name("vtable for ns::S"), "vtable for ns::S");
}

TEST(StripVersion, RemovesSuffix) {
  EXPECT_EQ(strip_version("memcpy@@GLIBC_2.14"), "memcpy");
  EXPECT_EQ(strip_version("foo@VERS_1"), "foo");
  EXPECT_EQ(strip_version("foo"), "foo");
}

TEST(ColdFragment, Detects) {
  EXPECT_TRUE(is_cold_fragment("main.cold"));
  EXPECT_TRUE(is_cold_fragment("foo.cold.3"));
  EXPECT_TRUE(is_cold_fragment("ns::f(int) [clone .cold]"));
  EXPECT_FALSE(is_cold_fragment("coldstart"));
  EXPECT_FALSE(is_cold_fragment("foo.part.0"));
}

}  // namespace
}  // namespace roofprof::symbolizer
