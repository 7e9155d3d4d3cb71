// Event-set selection from libpfm4-detected PMUs (forced with LIBPFM_FORCE_PMU, each in a
// fresh process) and from /proc/cpuinfo family/model for parts libpfm4 4.13 does not know.
#include "counters/event_set_selection.hpp"

#include <cstdlib>
#include <gtest/gtest.h>

#include "counters/event_catalog.hpp"
#include "counters/pfm_library.hpp"
#include "pfm_child.hpp"

namespace roofprof::counters {
namespace {

// In a child: force the PMU, detect, select; returns "<model>|<qualifying pmu>|<detected>".
std::string select_forced(const std::string& pfm_pmu) {
  return testing::run_in_child([&] {
    ::setenv("LIBPFM_FORCE_PMU", pfm_pmu.c_str(), 1);
    PfmLibrary pfm(false);
    const auto present = pfm.present_core_pmus();
    std::string detected;
    for (const auto& p : present) detected += p + " ";
    const EventSetSelection sel = select_event_set(event_catalog(), present, CpuInfo{});
    return (sel.set ? sel.set->model : std::string("none")) + "|" + sel.core_pmu + "|" + detected;
  });
}

TEST(Selection, ForcedIntelPmus) {
  EXPECT_EQ(select_forced("snb"), "snb|snb|snb ");
  EXPECT_EQ(select_forced("ivb_ep"), "snb|ivb_ep|ivb_ep ");
  EXPECT_EQ(select_forced("hsw"), "hsw|hsw|hsw ");
  EXPECT_EQ(select_forced("skx"), "skx|skx|skx ");
  EXPECT_EQ(select_forced("clx"), "skx|clx|clx ");
  EXPECT_EQ(select_forced("icx"), "icx|icx|icx ");
  EXPECT_EQ(select_forced("spr"), "spr|spr|spr ");
}

TEST(Selection, ForcedAmdPmus) {
  EXPECT_EQ(select_forced("amd64_fam17h_zen2"), "zen2|amd64_fam17h_zen2|amd64_fam17h_zen2 ");
  EXPECT_EQ(select_forced("amd64_fam19h_zen3"), "zen3|amd64_fam19h_zen3|amd64_fam19h_zen3 ");
  EXPECT_EQ(select_forced("amd64_fam19h_zen4"), "zen4|amd64_fam19h_zen4|amd64_fam19h_zen4 ");
}

CpuInfo cpu(const std::string& vendor, int family, int model) {
  CpuInfo c;
  c.vendor = vendor;
  c.family = family;
  c.model = model;
  return c;
}

TEST(Selection, FallsBackToCpuidForPartsLibpfmDoesNotKnow) {
  const auto& cat = event_catalog();
  EventSetSelection adl = select_event_set(cat, {}, cpu("GenuineIntel", 6, 0x97));
  ASSERT_NE(adl.set, nullptr);
  EXPECT_EQ(adl.set->model, "adl");
  EXPECT_EQ(adl.how, "CPU family 0x6 model 0x97");
  EXPECT_EQ(adl.core_pmu, "");  // raw-only set
  // Emerald Rapids: libpfm4 4.13 does not know it; its own raw set, qualified by no PMU.
  EventSetSelection emr = select_event_set(cat, {}, cpu("GenuineIntel", 6, 0xcf));
  ASSERT_NE(emr.set, nullptr);
  EXPECT_EQ(emr.set->model, "emr");
  EXPECT_EQ(emr.core_pmu, "");
  // A CPUID match never names a PMU libpfm4 did not activate: Zen 4 model 0x61 under a
  // libpfm4 that detected nothing uses the raw fallbacks, not amd64_fam19h_zen4.
  EventSetSelection zen4 = select_event_set(cat, {}, cpu("AuthenticAMD", 0x19, 0x61));
  ASSERT_NE(zen4.set, nullptr);
  EXPECT_EQ(zen4.set->model, "zen4");
  EXPECT_EQ(zen4.core_pmu, "");
  // This VM's CPU: Zen 5 (family 0x1a model 0x02).
  EventSetSelection zen5 = select_event_set(cat, {}, cpu("AuthenticAMD", 0x1a, 0x02));
  ASSERT_NE(zen5.set, nullptr);
  EXPECT_EQ(zen5.set->model, "zen5");
  // The vendor must match too: an AMD family 6 part is not Intel.
  EXPECT_EQ(select_event_set(cat, {}, cpu("AuthenticAMD", 6, 0x97)).set, nullptr);
}

TEST(Selection, NoSetSaysWhy) {
  const EventSetSelection none =
      select_event_set(event_catalog(), {"ix86arch"}, cpu("AuthenticAMD", 0x1a, 0xf0));
  EXPECT_EQ(none.set, nullptr);
  EXPECT_EQ(none.how, "no event set for AuthenticAMD family 0x1a model 0xf0 (libpfm4 core PMUs: ix86arch)");
}

}  // namespace
}  // namespace roofprof::counters
