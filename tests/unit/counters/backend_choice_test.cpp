// `--backend auto|perf|native|emul|time` decided from capabilities.
#include "counters/backend_choice.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"

namespace roofprof::counters {
namespace {

constexpr const char* kNoPmu =
    "perf_event_open(cycles): No such file or directory (this CPU or VM does not expose that "
    "counter; try --backend emul or time)";

Capabilities no_pmu_vm(bool valgrind) {
  Capabilities c;
  c.cpu.vendor = "AuthenticAMD";
  c.cpu.family = 0x1a;
  c.cpu.model = 2;
  c.cpu.flags = {"avx2", "avx512f", "hypervisor"};
  c.hardware_counters = false;
  c.hardware_problem = kNoPmu;
  c.hardware_errno = 2;
  c.software_counters = true;
  if (valgrind) {
    c.valgrind_version = "3.19.0";
    c.valgrind_path = "/usr/bin/valgrind";
  }
  return c;
}

Capabilities bare_metal(const std::string& model) {
  Capabilities c;
  c.cpu.vendor = "GenuineIntel";
  c.hardware_counters = true;
  c.software_counters = true;
  c.selection = {find_event_set(model), model, "libpfm4 PMU " + model};
  c.valgrind_version = "3.19.0";
  return c;
}

TEST(ChooseBackend, AutoPicksNativeCountingWithoutAPmuAndSaysWhy) {
  const BackendChoice b = choose_backend(BackendRequest::automatic, no_pmu_vm(true));
  EXPECT_EQ(b.kind, BackendKind::native);
  EXPECT_EQ(to_string(b.kind), "native");
  EXPECT_EQ(b.reason, std::string("no usable hardware counters (") + kNoPmu +
                          "): flops counted where they run, by patched code (native counting); bytes below L1 by "
                          "an emulated run (valgrind 3.19.0) with --emul-budget");
  EXPECT_TRUE(b.traffic_by_emulation);
  EXPECT_TRUE(b.warnings.empty());
}

// Where native counting cannot run (--pid, --no-ptrace), auto picks what it picked before it.
TEST(ChooseBackend, WithoutNativeCountingEmulationThenTime) {
  const BackendChoice emul = choose_without_native(no_pmu_vm(true), "");
  EXPECT_EQ(emul.kind, BackendKind::emul);
  EXPECT_EQ(emul.reason, "valgrind 3.19.0 found: exact counts by emulation (much slower)");
  ASSERT_EQ(emul.warnings.size(), 1u);  // AVX-512 CPU, valgrind without AVX-512
  EXPECT_NE(emul.warnings[0].find("SIGILL"), std::string::npos);
  EXPECT_EQ(choose_without_native(no_pmu_vm(false), "").kind, BackendKind::time);
}

TEST(ChooseBackend, ExplicitPerfWithoutAPmuIsAOneLineUserError) {
  try {
    choose_backend(BackendRequest::perf, no_pmu_vm(true));
    FAIL() << "perf accepted without hardware counters";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()),
              std::string("--backend perf: hardware counters are not usable here (") + kNoPmu +
                  "); run `roofprof doctor`, or use --backend emul or time");
  }
}

TEST(ChooseBackend, AutoWithoutPmuOrValgrindCountsNativelyWithoutBytes) {
  const BackendChoice b = choose_backend(BackendRequest::automatic, no_pmu_vm(false));
  EXPECT_EQ(b.kind, BackendKind::native);
  EXPECT_FALSE(b.traffic_by_emulation);
  ASSERT_EQ(b.warnings.size(), 1u);
  EXPECT_EQ(b.warnings[0].rfind("bytes (Q) are not measured: no hardware counters and no valgrind", 0), 0u);
  EXPECT_THROW(choose_backend(BackendRequest::emul, no_pmu_vm(false)), UserError);
}

TEST(ChooseBackend, AutoPrefersHardwareCountersThatGiveW) {
  const BackendChoice b = choose_backend(BackendRequest::automatic, bare_metal("skx"));
  EXPECT_EQ(b.kind, BackendKind::perf);
  EXPECT_EQ(b.reason, "hardware counters usable (event set skx, libpfm4 PMU skx)");
  EXPECT_TRUE(b.warnings.empty());
}

TEST(ChooseBackend, HaswellCountsWNatively) {
  const BackendChoice b = choose_backend(BackendRequest::automatic, bare_metal("hsw"));
  EXPECT_EQ(b.kind, BackendKind::native);
  EXPECT_EQ(b.reason.rfind("hardware counters cannot give W (event set hsw: Haswell has no", 0), 0u)
      << b.reason;
  const BackendChoice forced = choose_backend(BackendRequest::perf, bare_metal("hsw"));
  EXPECT_EQ(forced.kind, BackendKind::perf);
  ASSERT_EQ(forced.warnings.size(), 1u);
  EXPECT_EQ(forced.warnings[0].rfind("W is not measured: event set hsw", 0), 0u);
}

// An unknown name never reaches choose_backend: run's --backend word is parsed once
// (runplan::backend_named, tests/unit/runplan/option_values_test.cpp).
TEST(ChooseBackend, TimeByName) {
  const BackendChoice b = choose_backend(BackendRequest::time, no_pmu_vm(true));
  EXPECT_EQ(b.kind, BackendKind::time);
  EXPECT_EQ(b.reason, "requested: wall time and software counters only");
}

// A request by name says the name of the backend it asks for (run's --backend, the result file's
// backend); auto is a request only.
TEST(ChooseBackend, RequestWordsAreTheBackendsNames) {
  EXPECT_EQ(to_string(BackendRequest::automatic), "auto");
  EXPECT_EQ(to_string(BackendRequest::perf), to_string(BackendKind::perf));
  EXPECT_EQ(to_string(BackendRequest::native), to_string(BackendKind::native));
  EXPECT_EQ(to_string(BackendRequest::emul), to_string(BackendKind::emul));
  EXPECT_EQ(to_string(BackendRequest::time), to_string(BackendKind::time));
  EXPECT_EQ(to_string(BackendKind::native), "native");
}

TEST(ChooseBackend, ThisMachine) {
  // Whatever this machine is, the decision must be consistent with what was probed.
  const Capabilities c = probe_capabilities();
  const BackendChoice b = choose_backend(BackendRequest::automatic, c);
  if (c.hardware_counters && c.selection.set && !c.selection.set->fp_missing)
    EXPECT_EQ(b.kind, BackendKind::perf);
  else
    EXPECT_EQ(b.kind, BackendKind::native);
  EXPECT_EQ(b.traffic_by_emulation, b.kind == BackendKind::native && c.valgrind_version.has_value());
  if (!c.hardware_counters) {
    EXPECT_THROW(choose_backend(BackendRequest::perf, c), UserError);
  }
}

TEST(Valgrind, Avx512SupportByVersion) {
  EXPECT_EQ(valgrind_supports_avx512("3.19.0"), std::optional<bool>(false));
  EXPECT_EQ(valgrind_supports_avx512("3.22.0"), std::optional<bool>(false));
  EXPECT_EQ(valgrind_supports_avx512("3.24.0"), std::optional<bool>(false));  // the engine install-deps.sh sets up
  EXPECT_EQ(valgrind_supports_avx512("3.25.1"), std::nullopt);
  EXPECT_EQ(valgrind_supports_avx512("garbage"), std::nullopt);
}

}  // namespace
}  // namespace roofprof::counters
