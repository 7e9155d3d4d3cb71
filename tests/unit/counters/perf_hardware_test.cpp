// The hardware backend through the same Backend interface. On a machine without a PMU it must
// fail cleanly (ENOENT -> UserError with advice); with a PMU it must count cycles.
#include "counters/perf_hardware.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/capabilities.hpp"
#include "counters/event_catalog.hpp"
#include "counters/group_plan.hpp"
#include "counters/perf_system.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {
namespace {

std::vector<EncodedEvent> thread_events(const std::string& model) {
  const EventSet& set = *find_event_set(model);
  PfmLibrary pfm(true);
  std::vector<EncodedEvent> out;
  for (EncodedEvent& e : encode_event_set(set, pfm, qualifying_pmu(set, {})))
    if (e.line.scope == EventScope::thread) out.push_back(e);
  return out;
}

TEST(PerfHardware, EventsComeInGroupOrder) {
  const EventSet& skx = *find_event_set("skx");
  auto backend = make_perf_hardware_backend(thread_events("skx"), skx.counters);
  EXPECT_EQ(backend->name(), "perf");
  ASSERT_EQ(backend->events().size(), 10u);
  EXPECT_EQ(backend->events()[0].name, "cycles");
  EXPECT_EQ(backend->events()[1].name, "ref_cycles");
  EXPECT_EQ(backend->events()[3].name, "fp_scalar");
  EXPECT_EQ(backend->events()[9].name, "l2_lines_out");
}

// The groups the in-process agent opens: the plan's, with the attributes open() uses.
TEST(PerfHardware, ThreadGroupsAreThePlannedGroups) {
  const EventSet& skx = *find_event_set("skx");
  auto backend = make_perf_hardware_backend(thread_events("skx"), skx.counters, perf_system().sysfs_root(),
                                            w_event_ids(skx));
  const auto groups = backend->thread_groups();
  // roofprof events --pmu skx with all 4 counters: W's 5 events cannot be pinned whole; fixed +
  // its first four, then sp_512 and the L2 lines.
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].size(), 7u);
  EXPECT_EQ(groups[1].size(), 3u);
  EXPECT_EQ(groups[0][3].type, uint32_t(PERF_TYPE_RAW));
  EXPECT_EQ(groups[0][3].config, 0x3c7u);  // fp_scalar, as events()[3] says
  EXPECT_EQ(groups[1][2].config, 0x2f2u);  // l2_lines_out
  for (const auto& g : groups)
    for (const perf_event_attr& a : g) {
      EXPECT_EQ(a.exclude_kernel, 1u);  // user level
      EXPECT_EQ(a.pinned, 0u);
    }
  // Ice Lake-SP: W fits, its group's leader (only) carries pinned, as open() opens it.
  const EventSet& icx = *find_event_set("icx");
  const auto icx_groups = make_perf_hardware_backend(thread_events("icx"), icx.counters, perf_system().sysfs_root(),
                                                     w_event_ids(icx))->thread_groups();
  ASSERT_EQ(icx_groups.size(), 2u);
  EXPECT_EQ(icx_groups[0][0].pinned, 1u);
  for (size_t i = 1; i < icx_groups[0].size(); ++i) EXPECT_EQ(icx_groups[0][i].pinned, 0u);
  for (const perf_event_attr& a : icx_groups[1]) EXPECT_EQ(a.pinned, 0u);
}

TEST(PerfHardware, OpenFailsCleanlyWithoutAPmuAndCountsWithOne) {
  const bool has_pmu = probe_capabilities().hardware_counters;
  // Architectural cycles (0x3c) and instructions (0xc0) exist on every Intel PMU; on AMD,
  // 0x76 and 0xc0. Pick the set matching this CPU's vendor so the "with PMU" branch is valid.
  const CpuInfo cpu = read_cpuinfo();
  const std::string model = cpu.vendor_short() == "amd" ? "zen3" : "skx";
  std::vector<EncodedEvent> events;
  for (const EncodedEvent& e : thread_events(model))
    if (e.line.id == "cycles" || e.line.id == "instructions") events.push_back(e);
  auto backend = make_perf_hardware_backend(events, find_event_set(model)->counters);
  if (!has_pmu) {
    try {
      backend->open(::gettid());
      FAIL() << "opened hardware counters although the probe said there are none";
    } catch (const UserError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("perf_event_open(cycles, thread"), std::string::npos) << msg;
      EXPECT_NE(msg.find("try --backend emul or time"), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line";
    }
  } else {
    auto counters = backend->open(::gettid());
    volatile double x = 1;
    for (int i = 0; i < 1000000; ++i) x = x * 1.0000001;
    const CounterValues v = counters->read();
    ASSERT_EQ(v.values.size(), 2u);
    EXPECT_GT(v.values[0], 0.0);
    EXPECT_GT(v.values[1], 1e6);
  }
}

TEST(PerfHardware, MissingHybridPmuIsAUserError) {
  const std::string root = ::testing::TempDir() + "/sysfs_empty";
  std::filesystem::create_directories(root);
  std::vector<EncodedEvent> adl;
  for (const EncodedEvent& e : thread_events("adl"))
    if (e.line.perf_pmu == "cpu_core") adl.push_back(e);
  try {
    make_perf_hardware_backend(adl, find_event_set("adl")->counters, root);
    FAIL() << "built a backend for a PMU that does not exist";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "PMU 'cpu_core' is not in " + root +
                                         " (this kernel or CPU does not expose it; check `roofprof doctor`)");
  }
}

TEST(PerfHardware, SysfsTypeIsReadForNamedPmus) {
  const std::string root = ::testing::TempDir() + "/sysfs_fake";
  std::filesystem::create_directories(root + "/cpu_core");
  std::ofstream(root + "/cpu_core/type") << "8\n";
  EXPECT_EQ(sysfs_pmu_type("cpu_core", root), 8u);
  EXPECT_EQ(sysfs_pmu_type("cpu_atom", root), std::nullopt);
  std::vector<EncodedEvent> core;
  for (const EncodedEvent& e : thread_events("adl"))
    if (e.line.perf_pmu == "cpu_core") core.push_back(e);
  auto backend = make_perf_hardware_backend(core, find_event_set("adl")->counters, root);
  EXPECT_EQ(backend->events().size(), core.size());
}

TEST(Sysfs, ParsesCpuLists) {
  EXPECT_EQ(parse_cpu_list("0,24"), (std::vector<int>{0, 24}));
  EXPECT_EQ(parse_cpu_list("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpu_list(""), std::vector<int>{});
}

}  // namespace
}  // namespace roofprof::counters
