#include "symbolizer/linespec.hpp"

#include <gtest/gtest.h>

#include "symbolizer/demangle.hpp"
#include "symbolizer/elf_file.hpp"

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

}  // namespace
}  // namespace roofprof::symbolizer
