// System-wide uncore counters fail with a clear one-line message when they cannot be opened.
#include "counters/uncore_counters.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "counters/event_catalog.hpp"
#include "counters/pfm_library.hpp"

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

}  // namespace
}  // namespace roofprof::counters
