// System-wide uncore counters fail with a clear one-line message when they cannot be opened.
#include "counters/uncore_counters.hpp"

#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"
#include "counters/pfm_library.hpp"
#include "counters/scripted_pmu.hpp"
#include "pfm_child.hpp"

namespace roofprof::counters {
namespace {

std::vector<EncodedEvent> skx_uncore() {
  PfmLibrary pfm(true);
  std::vector<EncodedEvent> out;
  for (EncodedEvent& e : encode_event_set(*find_event_set("skx"), pfm, "skx"))
    if (e.line.scope == EventScope::uncore) out.push_back(e);
  return out;
}

TEST(UncoreCounters, NoImcPmuIsAUserError) {
  const std::string root = ::testing::TempDir() + "/uncore_none";
  std::filesystem::create_directories(root);
  try {
    UncoreCounters u(skx_uncore(), root);
    FAIL() << "opened uncore counters without any uncore PMU";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("no memory-controller PMU on this machine (uncore_imc_0, ", 0), 0u) << msg;
    EXPECT_NE(msg.find("the per-core approximation is used instead"), std::string::npos) << msg;
  }
}

TEST(UncoreCounters, KernelRefusalCarriesAdvice) {
  // A PMU directory whose type no kernel PMU has: perf_event_open fails (ENOENT).
  const std::string root = ::testing::TempDir() + "/uncore_fake";
  std::filesystem::create_directories(root + "/uncore_imc_0");
  std::ofstream(root + "/uncore_imc_0/type") << "4000\n";
  std::ofstream(root + "/uncore_imc_0/cpumask") << "0\n";
  try {
    UncoreCounters u(skx_uncore(), root);
    FAIL() << "opened an event on a PMU type that does not exist";
  } catch (const UserError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("perf_event_open(cas_rd on uncore_imc_0, cpu 0): ", 0), 0u) << msg;
  }
}

TEST(UncoreCounters, SystemWideEventsAreReadOncePerProcessReadWhateverTheThreads) {
  // One box on two sockets, 5 CAS reads per box and read; two threads of task-clock.
  const std::string out = testing::run_in_child([] {
    ScriptedPmu pmu("pmu uncore_imc_0 17 0,56\ncount 17 0x304 5\n");
    replace_perf_system(&pmu);
    EncodedEvent cas;
    cas.line.id = "cas_rd";
    cas.line.scope = EventScope::uncore;
    cas.line.perf_pmu = "uncore_imc_0";
    cas.config = 0x304;
    auto backend = with_system_wide(make_perf_software_backend({"task-clock"}),
                                    std::make_unique<UncoreCounters>(std::vector<EncodedEvent>{cas}));
    ProcessCounters pc(*backend);
    pc.add_thread(1001);
    pc.add_thread(1002);
    const CounterValues first = pc.read_process(), second = pc.read_process();
    const CounterValues thread = pc.read_thread(1001);
    const CounterGroupTimes& g = second.groups.back();
    return fmt::format("{} {} | {} {} | group {}+{} {}/{} | thread {}", backend->events().back().name,
                       backend->system_wide_events(), first.values.at(1), second.values.at(1), g.first, g.count,
                       g.enabled, g.running, std::isnan(thread.values.at(1)) ? "not counted" : "counted");
  });
  EXPECT_EQ(out, "cas_rd 1 | 10 20 | group 1+1 4000/4000 | thread not counted");
}

}  // namespace
}  // namespace roofprof::counters
