// Every shipped event set parses, is found by name, and every one of its events encodes.
#include "counters/event_catalog.hpp"

#include <gtest/gtest.h>
#include <set>

#include "counters/event_encoding.hpp"
#include "counters/pfm_library.hpp"

namespace roofprof::counters {
namespace {

TEST(EventCatalog, ShipsOneSetPerFamily) {
  std::set<std::string> models;
  for (const EventSet& s : event_catalog()) EXPECT_TRUE(models.insert(s.model).second) << s.model;
  EXPECT_EQ(models, (std::set<std::string>{"snb", "hsw", "bdw", "skl", "skx", "icl", "icx", "spr", "emr", "gnr",
                                           "srf", "cwf", "adl", "adln", "mtl", "lnl", "arl", "arlh", "ptl", "zen1",
                                           "zen2", "zen3", "zen4", "zen5"}));
  EXPECT_EQ(catalog_models(), "adl, adln, arl, arlh, bdw, cwf, emr, gnr, hsw, icl, icx, lnl, mtl, ptl, skl, skx, snb, "
                              "spr, srf, zen1, zen2, zen3, zen4, zen5");
}

TEST(EventCatalog, FindsByModelOrLibpfmName) {
  EXPECT_EQ(find_event_set("skx")->model, "skx");
  EXPECT_EQ(find_event_set("clx")->model, "skx");
  EXPECT_EQ(find_event_set("ivb_ep")->model, "snb");
  EXPECT_EQ(find_event_set("amd64_fam19h_zen3")->model, "zen3");
  EXPECT_EQ(find_event_set("nehalem"), nullptr);
}

TEST(EventCatalog, EveryEventOfEverySetEncodes) {
  PfmLibrary pfm(true);
  for (const EventSet& s : event_catalog()) {
    SCOPED_TRACE(s.model);
    std::vector<EncodedEvent> enc;
    ASSERT_NO_THROW(enc = encode_event_set(s, pfm, qualifying_pmu(s, {})));
    ASSERT_EQ(enc.size(), s.events.size());
    for (const EncodedEvent& e : enc) EXPECT_NE(e.config, 0u) << e.line.id;
  }
}

TEST(EventCatalog, EverySetMeasuresTimeAndSaysHowItGetsQ) {
  for (const EventSet& s : event_catalog()) {
    SCOPED_TRACE(s.model);
    bool cycles = false;
    for (const EventLine& e : s.events) cycles = cycles || e.id.rfind("cycles", 0) == 0;
    EXPECT_TRUE(cycles);
    bool says_q_unknown = false;
    for (const std::string& n : s.notes) says_q_unknown = says_q_unknown || n.find("Q is unknown") != std::string::npos;
    bool q = false;  // Q.read or Q.<LEVEL>.read, exact or approximate
    for (const Formula& f : s.formulas) q = q || (f.name.rfind("Q.", 0) == 0 && f.name.find(".read") != std::string::npos);
    EXPECT_TRUE(q || says_q_unknown);
  }
}

}  // namespace
}  // namespace roofprof::counters
