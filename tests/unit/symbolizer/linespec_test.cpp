#include "symbolizer/linespec.hpp"

#include <gtest/gtest.h>

#include "symbolizer/demangle.hpp"
#include "symbolizer/elf_file.hpp"
#include "symbolizer/name_glob.hpp"
#include "symbolizer/suggest.hpp"

namespace roofprof::symbolizer {
namespace {

Symbol symbol(const std::string& name) {
  Symbol s;
  s.name = name;
  s.demangled = demangle(name);
  s.short_name = s.demangled == s.name ? s.name : short_name(s.demangled);
  return s;
}

bool matches(const std::string& pattern, const std::string& symbol_name) {
  auto p = parse_linespec(pattern);
  for (const auto& n : linespec_names(symbol(symbol_name)))
    if (linespec_matches(p, n)) return true;
  return false;
}

TEST(Linespec, StripsGccCloneSuffixes) {
  EXPECT_EQ(strip_clone_suffix("kern_axpy.constprop.0"), "kern_axpy");
  EXPECT_EQ(strip_clone_suffix("f.part.0.isra.0"), "f");
  EXPECT_EQ(strip_clone_suffix("f.lto_priv.3"), "f");
  EXPECT_EQ(strip_clone_suffix("f.localalias"), "f");
  EXPECT_EQ(strip_clone_suffix("double ns::dot<double>(ns::Vec) [clone .isra.0]"), "double ns::dot<double>(ns::Vec)");
  EXPECT_EQ(strip_clone_suffix("f.cold"), "f.cold");  // a fragment, not the function
  EXPECT_EQ(strip_clone_suffix("file.version2"), "file.version2");
  EXPECT_EQ(strip_clone_suffix("main"), "main");
}

TEST(Linespec, CxxScopesTemplatesAndParameters) {
  const std::string step = "_ZN2ns6SolverIdE4stepEi";  // ns::Solver<double>::step(int)
  EXPECT_TRUE(matches("ns::Solver::step", step));
  EXPECT_TRUE(matches("Solver::step", step));
  EXPECT_TRUE(matches("step", step));
  EXPECT_TRUE(matches("ns::Solver<double>::step", step));
  EXPECT_TRUE(matches("ns::Solver< double >::step(int)", step));
  EXPECT_FALSE(matches("ns::Solver<float>::step", step));
  EXPECT_FALSE(matches("step(double)", step));
  EXPECT_FALSE(matches("olver::step", step));
  EXPECT_FALSE(matches("other::step", step));
  const std::string dot = "_Z3dotdd";  // dot(double, double)
  EXPECT_TRUE(matches("dot(double,double)", dot));
  EXPECT_TRUE(matches("dot( double , double )", dot));
  EXPECT_TRUE(matches("::dot", dot));
}

TEST(Linespec, ClonesAnswerToTheirOrigin) {
  EXPECT_TRUE(matches("ns::dot", "_ZN2nsL3dotIdEET_NS_3VecES2_.isra.0"));
  EXPECT_TRUE(matches("ns::dot<double>(ns::Vec,ns::Vec)", "_ZN2nsL3dotIdEET_NS_3VecES2_.isra.0"));
  EXPECT_TRUE(matches("kern_axpy", "kern_axpy.constprop.0"));
  EXPECT_TRUE(linespec_names(symbol("kern_axpy.cold")).empty());
}

TEST(Linespec, FortranSpellings) {
  EXPECT_TRUE(matches("kernel", "__mymod_MOD_kernel"));
  EXPECT_TRUE(matches("mymod::kernel", "__mymod_MOD_kernel"));
  EXPECT_TRUE(matches("__mymod_MOD_kernel", "__mymod_MOD_kernel"));
  EXPECT_TRUE(matches("mymod::kernel", "mymod_mp_kernel_"));
  EXPECT_TRUE(matches("kernel", "mymod_mp_kernel_"));
  EXPECT_TRUE(matches("kernel", "kernel_"));
  EXPECT_TRUE(matches("kernel_", "kernel_"));
  EXPECT_FALSE(matches("other::kernel", "__mymod_MOD_kernel"));
  // "kernel" from "kernel_" is a fallback spelling only.
  auto names = linespec_names(symbol("kernel_"));
  ASSERT_EQ(names.size(), 2u);
  EXPECT_TRUE(names[1].fortran_external);
}

TEST(Linespec, DisplayNamesAreAcceptedBack) {
  for (std::string n : {"__mymod_MOD_kernel", "_ZN2nsL3dotIdEET_NS_3VecES2_.isra.0", "kern_axpy.constprop.0",
                        "_ZN2ns6SolverIdE4stepEi", "memcpy@@GLIBC_2.14"}) {
    std::string shown = display_name(symbol(n));
    EXPECT_TRUE(matches(shown, n)) << n << " shown as " << shown;
  }
  EXPECT_EQ(display_name(symbol("__mymod_MOD_kernel")), "mymod::kernel");
  EXPECT_EQ(display_name(symbol("_ZN2nsL3dotIdEET_NS_3VecES2_.isra.0")), "ns::dot<double>");
}


TEST(Linespec, StarsAndAmpersandsInAParameterListAreLiteral) {
  const std::string pair = "_Z5scalePfi", one = "_Z5scalePf";  // scale(float*, int), scale(float*)
  EXPECT_TRUE(matches("scale(float*,int)", pair));
  EXPECT_TRUE(matches("scale(float *, int)", pair));
  EXPECT_TRUE(matches("scale( float * , int )", pair));
  EXPECT_FALSE(matches("scale(float*)", pair));
  EXPECT_TRUE(matches("scale(float*)", one));
  EXPECT_FALSE(matches("scale(double*,int)", pair));
  EXPECT_TRUE(matches("get(Vec const&)", "_Z3getRK3Vec"));
  EXPECT_TRUE(matches("get(Vec const &)", "_Z3getRK3Vec"));
  EXPECT_TRUE(matches("ns::S::value() const", "_ZNK2ns1S5valueEv"));
  EXPECT_TRUE(matches("ns::S::value()", "_ZNK2ns1S5valueEv"));
}

TEST(Linespec, Operators) {
  const std::string call = "_ZNK6KernelclEi";  // Kernel::operator()(int) const
  EXPECT_TRUE(matches("Kernel::operator()", call));
  EXPECT_TRUE(matches("operator()", call));
  EXPECT_TRUE(matches("Kernel::operator()(int)", call));
  EXPECT_TRUE(matches("Kernel::operator() (int) const", call));
  EXPECT_FALSE(matches("Kernel::operator()(double)", call));
  EXPECT_FALSE(matches("Other::operator()", call));
  // gebp_kernel<double, double, long>::operator()(double*, int)
  const std::string gebp = "_ZN5Eigen8internal11gebp_kernelIddlEclEPdi";
  EXPECT_TRUE(matches("gebp_kernel<double, double, long>::operator()", gebp));
  EXPECT_TRUE(matches("gebp_kernel::operator()", gebp));
  EXPECT_TRUE(matches("Eigen::internal::gebp_kernel<double,double,long>::operator()(double*,int)", gebp));
  EXPECT_TRUE(matches("operator+", "_Zpl3VecS_"));
  EXPECT_TRUE(matches("operator+(Vec, Vec)", "_Zpl3VecS_"));
  EXPECT_FALSE(matches("operator-", "_Zpl3VecS_"));
  EXPECT_TRUE(matches("Vec::operator[]", "_ZN3VecixEi"));
  EXPECT_TRUE(matches("operator<<", "_ZlsRSoRK3Vec"));
  EXPECT_TRUE(matches("operator<<(std::ostream&, Vec const&)", "_ZlsRSoRK3Vec"));
  EXPECT_TRUE(matches("operator new", "_Znwm"));
  EXPECT_TRUE(matches("operator new(unsigned long)", "_Znwm"));
  EXPECT_FALSE(matches("operator new", "_Znam"));  // operator new[]
  EXPECT_TRUE(matches("operator new[]", "_Znam"));
  EXPECT_TRUE(matches("ns::S::~S", "_ZN2ns1SD2Ev"));
}

TEST(Linespec, LambdasByEnclosingFunctionAndLine) {
  const std::string lambda = "_ZZ4mainENKUliE_clEi";  // main::{lambda(int)#1}::operator()(int) const
  auto p = parse_linespec("main::lambda@prog.cpp:42");
  ASSERT_TRUE(p.lambda.has_value());
  EXPECT_EQ(*p.lambda, (LambdaRef{"prog.cpp", 42}));
  EXPECT_EQ(p.scopes, std::vector<std::string>{"main"});
  EXPECT_EQ(*parse_linespec("lambda@42").lambda, (LambdaRef{"", 42}));
  EXPECT_FALSE(parse_linespec("main::lambda@x").lambda.has_value());
  EXPECT_TRUE(matches("main::lambda@prog.cpp:42", lambda));  // the line is the line table's (match_test)
  EXPECT_TRUE(matches("lambda@42", lambda));
  EXPECT_FALSE(matches("other::lambda@42", lambda));
  EXPECT_FALSE(matches("main::lambda@42", "_Z4mainv"));
  // In a member function: ns::S::run(int)::{lambda(double)#1}::operator()(double) const.
  const std::string member = "_ZZN2ns1S3runEiENKUldE_clEd";
  EXPECT_TRUE(matches("S::run::lambda@7", member));
  EXPECT_TRUE(matches("ns::S::run(int)::lambda@7", member));
  EXPECT_FALSE(matches("S::walk::lambda@7", member));
}

TEST(Linespec, OperatorAndLambdaDisplayNamesAreAcceptedBack) {
  for (std::string n : {"_ZNK6KernelclEi", "_ZN5Eigen8internal11gebp_kernelIddlEclEPdi", "_Zpl3VecS_", "_ZN3VecixEi",
                        "_ZlsRSoRK3Vec", "_Znwm", "_Znam", "_ZZ4mainENKUliE_clEi", "_ZZN2ns1S3runEiENKUldE_clEd",
                        "_ZN2ns1SD2Ev"}) {
    std::string shown = display_name(symbol(n));
    EXPECT_TRUE(matches(shown, n)) << n << " shown as " << shown;
    EXPECT_FALSE(is_glob(shown)) << shown;
  }
  EXPECT_EQ(display_name(symbol("_ZZ4mainENKUliE_clEi")), "main::{lambda(int)#1}::operator()");
}

TEST(NameGlob, WildcardsOnlyOutsideParameterListsAndOperators) {
  EXPECT_TRUE(is_glob("NPair*::build"));
  EXPECT_TRUE(is_glob("fftw_execute*"));
  EXPECT_TRUE(is_glob("fftw_[ab]x"));
  EXPECT_TRUE(is_glob("sca?e"));
  EXPECT_TRUE(is_glob("scale*(float*)"));
  EXPECT_FALSE(is_glob("scale(float*,int)"));
  EXPECT_FALSE(is_glob("scale(float *, int)"));
  EXPECT_FALSE(is_glob("Vec::operator*"));
  EXPECT_FALSE(is_glob("Vec::operator*=(Vec const&)"));
  EXPECT_FALSE(is_glob("Vec::operator[]"));
  EXPECT_FALSE(is_glob("operator delete[]"));
  EXPECT_FALSE(is_glob("f(int) [clone .isra.0]"));
  EXPECT_FALSE(is_glob("name[abi:cxx11]"));
  EXPECT_EQ(fnmatch_pattern("scale*(float *, int)"), "scale*(float\\*,int)");
}

TEST(NameGlob, MatchesAtAnyScope) {
  const Symbol half = symbol("_ZN9LAMMPS_NS9NPairHalf5buildEi");   // LAMMPS_NS::NPairHalf::build(int)
  const Symbol lj = symbol("_ZN9LAMMPS_NS9PairLJCut7computeEi");  // LAMMPS_NS::PairLJCut::compute(int)
  EXPECT_TRUE(glob_matches("NPair*::build", half));
  EXPECT_TRUE(glob_matches("LAMMPS_NS::NPair*::build", half));
  EXPECT_TRUE(glob_matches("*::build", half));
  EXPECT_TRUE(glob_matches("NPair*::build(int)", half));
  EXPECT_TRUE(glob_matches("NPair*::build( int )", half));
  EXPECT_FALSE(glob_matches("NPair*::build(double)", half));
  EXPECT_FALSE(glob_matches("Pair*::build", half));  // scopes match whole: NPairHalf is not Pair*
  EXPECT_TRUE(glob_matches("PairLJCut::*", lj));
  EXPECT_FALSE(glob_matches("PairLJCut::*", half));
  EXPECT_TRUE(glob_matches("_ZN9LAMMPS_NS9*", lj));  // the mangled name still
  EXPECT_TRUE(glob_matches("comp?te", lj));
  // Parameter lists are literal in a glob too: only the '*' outside is a wildcard.
  EXPECT_TRUE(glob_matches("sca*(float*,int)", symbol("_Z5scalePfi")));
  EXPECT_FALSE(glob_matches("sca*(float*,int)", symbol("_Z5scalePdi")));
  EXPECT_FALSE(glob_matches("sca*(float*)", symbol("_Z5scalePfi")));
}

TEST(Suggest, CaseInsensitiveAndAtAnyScope) {
  std::vector<std::string> names{"__tz_compute", "KIM::Model::Compute", "LAMMPS_NS::PairLJCut::compute",
                                 "LAMMPS_NS::PairLJCut::settings", "LAMMPS_NS::PairLJCutCoul::compute"};
  auto near = closest_names("PairLJcut::compute", names, 3);
  ASSERT_EQ(near.size(), 3u);
  EXPECT_EQ(near[0], "LAMMPS_NS::PairLJCut::compute");
  EXPECT_EQ(near[1], "LAMMPS_NS::PairLJCutCoul::compute");
  // Exact case breaks ties between case-insensitively equal names.
  EXPECT_EQ(closest_names("Step", {"step", "Step", "STEP"}, 3), (std::vector<std::string>{"Step", "step", "STEP"}));
  EXPECT_EQ(closest_names("thread_wrk", {"main", "thread_work", "_start"}, 1), std::vector<std::string>{"thread_work"});
  EXPECT_TRUE(closest_names("x", {}, 3).empty());
}

}  // namespace
}  // namespace roofprof::symbolizer
