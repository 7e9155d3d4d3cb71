// C++ names: a namespace function, a class method given as ns::Solver::step, the mangled form.
#include "harness.hpp"

namespace it {
namespace {

int64_t calls_of(const std::string& spec, const std::string& name) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", spec, "--", fixture("run_cxx_names")});
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), name);
  if (reg.is_null()) return -1;
  return calls(reg);
}

TEST(RunCxxNames, NamespaceFunction) { EXPECT_EQ(calls_of("ns::compute", "ns::compute"), 3); }
TEST(RunCxxNames, ClassMethod) { EXPECT_EQ(calls_of("ns::Solver::step", "ns::Solver::step"), 5); }
TEST(RunCxxNames, MangledName) { EXPECT_EQ(calls_of("_ZN2ns6Solver4stepEv", "_ZN2ns6Solver4stepEv"), 5); }

TEST(RunCxxNames, DemangledWithParameters) { EXPECT_EQ(calls_of("ns::compute(int)", "ns::compute(int)"), 3); }
TEST(RunCxxNames, GlobOverMethods) { EXPECT_EQ(calls_of("ns::Solver::*", "ns::Solver::step"), 5); }

TEST(RunCxxNames, BothInOneRun) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "ns::compute", "--region", "ns::Solver::step", "--",
                        fixture("run_cxx_names")});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "ns::compute")), 3);
  EXPECT_EQ(calls(region(doc, "ns::Solver::step")), 5);
}

}  // namespace
}  // namespace it
