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
      select_event_set(event_catalog(), {"ix86arch"}, cpu("AuthenticAMD", 0x1b, 0x10));
  EXPECT_EQ(none.set, nullptr);
  EXPECT_EQ(none.how, "no event set for AuthenticAMD family 0x1b model 0x10 (libpfm4 core PMUs: ix86arch)");
  EXPECT_EQ(model_fallback_note(none), "");
}

// "<model>" for an exact range match, "<model>?" for the nearest set of a known family,
// "none" when no set applies.
std::string by_cpuid(const std::string& vendor, int family, int model) {
  const EventSetSelection sel = select_event_set(event_catalog(), {}, cpu(vendor, family, model));
  if (!sel.set) return "none";
  return sel.set->model + (sel.model_fallback ? "?" : "");
}

// The kernel's Zen ranges (arch/x86/kernel/cpu/amd.c, bsp_init_amd): each edge inside and the
// model just outside, which belongs to the neighbouring generation or to none.
TEST(Selection, ZenGenerationsByTheKernelsModelRanges) {
  const std::string amd = "AuthenticAMD";
  // Zen 4: family 19h, models 10h-1Fh and 60h-AFh.
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x10), "zen4");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x1f), "zen4");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x0f), "zen3");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x20), "zen3");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x60), "zen4");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x75), "zen4");  // unlisted before ranges: W was null
  EXPECT_EQ(by_cpuid(amd, 0x19, 0xaf), "zen4");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0x5f), "zen3");
  EXPECT_EQ(by_cpuid(amd, 0x19, 0xb0), "zen4?");  // past every range: the nearest, marked
  // Zen 5: family 1Ah, models 00h-2Fh, 40h-4Fh, 60h-7Fh.
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x00), "zen5");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x2f), "zen5");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x30), "zen5?");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x3f), "zen5?");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x40), "zen5");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x4f), "zen5");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x50), "zen5?");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x5f), "zen5?");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x60), "zen5");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x7f), "zen5");
  EXPECT_EQ(by_cpuid(amd, 0x1a, 0x80), "zen5?");
  // Zen 1/2 (17h) and Zen 3 (19h) by their ranges too.
  EXPECT_EQ(by_cpuid(amd, 0x17, 0x2f), "zen1");
  EXPECT_EQ(by_cpuid(amd, 0x17, 0x30), "zen2");
  EXPECT_EQ(by_cpuid(amd, 0x17, 0x4f), "zen2");
  EXPECT_EQ(by_cpuid(amd, 0x17, 0x50), "zen1");
  EXPECT_EQ(by_cpuid(amd, 0x17, 0x91), "zen2");
  // A family no set lists gets none; a Hygon (vendor HygonGenuine) family 18h part is not AMD's.
  EXPECT_EQ(by_cpuid(amd, 0x1b, 0x00), "none");
  EXPECT_EQ(by_cpuid("HygonGenuine", 0x18, 0x00), "none");
}

// Intel parts per Intel's perfmon mapfile.csv, including models an earlier table lacked.
TEST(Selection, EveryIntelPartByItsModel) {
  const std::string intel = "GenuineIntel";
  const std::vector<std::pair<int, std::string>> parts = {
      {0x2a, "snb"}, {0x3e, "snb"}, {0x3f, "hsw"}, {0x4f, "bdw"}, {0x55, "skx"}, {0x9e, "skl"}, {0x7e, "icl"},
      {0x6a, "icx"}, {0x6c, "icx"}, {0x8f, "spr"}, {0xcf, "emr"}, {0xad, "gnr"}, {0xae, "gnr"}, {0xaf, "srf"},
      {0x97, "adl"}, {0xbf, "adl"}, {0xaa, "mtl"}, {0xb5, "mtl"},
      // Lunar Lake, Arrow Lake-S and -H (Lion Cove), Panther Lake, Alder Lake-N, Clearwater Forest.
      {0xbd, "lnl"}, {0xc6, "arl"}, {0xc5, "arlh"}, {0xcc, "ptl"}, {0xd5, "ptl"}, {0xe5, "ptl"},
      {0xbe, "adln"}, {0xdd, "cwf"}};
  for (const auto& [model, set] : parts) EXPECT_EQ(by_cpuid(intel, 6, model), set) << std::hex << model;
}

TEST(Selection, UnknownModelOfAKnownFamilyIsTheNearestSetAndSaysSo) {
  const EventSetSelection sel = select_event_set(event_catalog(), {}, cpu("AuthenticAMD", 0x19, 0xc0));
  ASSERT_NE(sel.set, nullptr);
  EXPECT_EQ(sel.set->model, "zen4");
  EXPECT_TRUE(sel.model_fallback);
  EXPECT_EQ(sel.how, "unknown model 0xc0 of known family 0x19: the nearest set, zen4 (models 17 away)");
  EXPECT_EQ(model_fallback_note(sel),
            "event set chosen for an unknown model 0xc0 of known family 0x19: the nearest set, zen4 (models 17 away); "
            "its events may not exist or mean the same on this part: W and Q are unverified (add a set for it: "
            "docs/counters.md, user event sets)");
  EXPECT_FALSE(select_event_set(event_catalog(), {}, cpu("AuthenticAMD", 0x19, 0x61)).model_fallback);
}

}  // namespace
}  // namespace roofprof::counters
