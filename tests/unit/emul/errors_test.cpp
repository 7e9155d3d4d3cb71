// What the emulation backend refuses, and how.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "tests/unit/emul/emul_test_util.hpp"

namespace roofprof::emul::test {
namespace {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(EmulErrors, Avx512ProgramIsAUserError) {
  std::string m = message_of([] { run({fixture("emul_avx512")}, {}, Options{}); });
  EXPECT_NE(m.find("AVX-512"), std::string::npos) << m;
  EXPECT_NE(m.find("valgrind"), std::string::npos) << m;
}

TEST(EmulErrors, MissingProgram) {
  std::string m = message_of([] { run({fixture("no_such_program")}, {}, Options{}); });
  EXPECT_NE(m.find("cannot run"), std::string::npos) << m;  // common/program.hpp: every mode says the same
}

TEST(EmulErrors, MissingProbeModule) {
  std::string m = message_of([] {
    run({fixture("emul_kernels_O2"), "counts"}, {probes::PlannedProbe{0, probes::SiteRole::Entry, "/no/such/lib.so", 0x1000, "", false}}, Options{});
  });
  EXPECT_NE(m.find("/no/such/lib.so"), std::string::npos) << m;
}

TEST(EmulErrors, MissingValgrind) {
  Options o;
  o.valgrind = "/no/such/valgrind";
  std::string m = message_of([&] { run({fixture("emul_kernels_O2"), "counts"}, {}, o); });
  EXPECT_NE(m.find("not found"), std::string::npos) << m;
}

TEST(EmulErrors, MissingTool) {
  std::string m = message_of([] { find_tool_dir("/nonexistent"); });
  EXPECT_NE(m.find("roofprof-amd64-linux"), std::string::npos) << m;
}

TEST(EmulErrors, EmptyCommand) { EXPECT_THROW(run({}, {}, Options{}), UserError); }

TEST(EmulErrors, ExitStatusAndSignalArePassedOn) {
  auto r = run({"/bin/sh", "-c", "exit 3"}, {}, Options{});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  auto k = run({"/bin/sh", "-c", "kill -TERM $$"}, {}, Options{});
  EXPECT_EQ(k.signal, 15);
  EXPECT_EQ(k.exit_code, -1);
}

}  // namespace
}  // namespace roofprof::emul::test
