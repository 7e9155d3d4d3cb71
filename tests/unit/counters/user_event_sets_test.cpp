// Event sets from the user's directories: found by the XDG rule, parsed like the shipped files,
// added or replacing a shipped model, and a bad file named with its line.
#include "counters/user_event_sets.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "common/temp_dir.hpp"
#include "counters/event_catalog.hpp"
#include "counters/event_set_selection.hpp"
#include "pfm_child.hpp"

namespace roofprof::counters {
namespace {

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// A Skylake-SP set with the precision split (8 classes), overriding the shipped `skx`.
constexpr const char* kSkxSplit =
    "model skx\ntitle Skylake-SP, by precision\nvendor intel\nmatch cpu 6 0x55\ncounters 8\n"
    "event cycles raw:0x3c fixed\n"
    "event dp_scalar raw:0x01c7\nevent sp_scalar raw:0x02c7\n"
    "formula W = 1*dp_scalar + 1*sp_scalar\n";
// A part no shipped set knows, added.
constexpr const char* kNew =
    "model futurex\ntitle Future Xeon\nvendor intel\nmatch cpu 6 0xf0-0xf3\ncounters 8\n"
    "event cycles raw:0x3c fixed\nevent fp_scalar raw:0x03c7\nformula W = 1*fp_scalar\n";

TEST(UserEventSets, DefaultDirectoryFollowsXdg) {
  EXPECT_EQ(default_event_dir("/x/cfg", "/home/u"), "/x/cfg/roofprof/events");
  EXPECT_EQ(default_event_dir("", "/home/u"), "/home/u/.config/roofprof/events");
  EXPECT_EQ(default_event_dir(nullptr, "/home/u"), "/home/u/.config/roofprof/events");
  EXPECT_EQ(default_event_dir(nullptr, nullptr), "");
}

TEST(UserEventSets, LoadsEveryTxtInNameOrderAndMarksThemUser) {
  TempDir dir("roofprof-test", "event dir");
  write(dir.path() + "/b.txt", kSkxSplit);
  write(dir.path() + "/a.txt", kNew);
  write(dir.path() + "/README", "not an event set");
  const std::vector<EventSet> sets = load_event_dir(dir.path());
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].model, "futurex");
  EXPECT_EQ(sets[0].source, dir.path() + "/a.txt");
  EXPECT_TRUE(sets[0].user);
  EXPECT_EQ(sets[1].model, "skx");
  EXPECT_TRUE(load_event_dir(dir.path() + "/absent").empty());
}

TEST(UserEventSets, AddOrOverrideShippedSetsAndComeFirst) {
  TempDir dir("roofprof-test", "event dir");
  write(dir.path() + "/skx.txt", kSkxSplit);
  write(dir.path() + "/futurex.txt", kNew);
  const std::vector<EventSet> merged = merge_user_sets(event_catalog(), load_event_dir(dir.path()));
  EXPECT_EQ(merged.size(), event_catalog().size() + 1);  // skx replaced, futurex added
  EXPECT_EQ(merged[0].model, "futurex");
  const EventSet* skx = find_event_set(merged, "skx");
  ASSERT_NE(skx, nullptr);
  EXPECT_TRUE(skx->user);
  EXPECT_EQ(skx->title, "Skylake-SP, by precision");
  EXPECT_EQ(find_event_set(merged, "clx"), nullptr);  // the shipped set's libpfm4 names went with it
  // Selection by CPUID finds the user's sets: its new model, and its skx for 6/0x55.
  CpuInfo cpu;
  cpu.vendor = "GenuineIntel";
  cpu.family = 6;
  cpu.model = 0xf2;
  EXPECT_EQ(select_event_set(merged, {}, cpu).set->model, "futurex");
  cpu.model = 0x55;
  EXPECT_EQ(select_event_set(merged, {}, cpu).set, skx);
}

TEST(UserEventSets, OptionDirectoryWinsOverTheDefaultOne) {
  TempDir cfg("roofprof-test", "config dir");
  const std::string dflt = cfg.path() + "/roofprof/events";
  std::filesystem::create_directories(dflt);
  write(dflt + "/x.txt", kNew);
  TempDir opt("roofprof-test", "option dir");
  write(opt.path() + "/y.txt", std::string(kNew).replace(std::string(kNew).find("Future Xeon"), 11, "Option Xeon"));
  const std::string out = testing::run_in_child([&] {
    ::setenv("XDG_CONFIG_HOME", cfg.path().c_str(), 1);
    const Catalog with_default = catalog_with_user_sets("");
    const Catalog with_option = catalog_with_user_sets(opt.path());
    return find_event_set(*with_default, "futurex")->title + "|" + find_event_set(*with_option, "futurex")->title;
  });
  EXPECT_EQ(out, "Future Xeon|Option Xeon");
}

TEST(UserEventSets, BadFileIsOneLineNamingFileAndLine) {
  TempDir dir("roofprof-test", "event dir");
  write(dir.path() + "/bad.txt", "model broken\ntitle B\nvendor intel\nmatch cpu 6 0x10\ncounters 4\nevent dp raw:0xzz\n");
  try {
    load_event_dir(dir.path());
    FAIL() << "a bad file loaded";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), dir.path() + "/bad.txt:6: bad raw encoding 'raw:0xzz'");
  }
  TempDir twice("roofprof-test", "event dir");
  write(twice.path() + "/a.txt", kNew);
  write(twice.path() + "/b.txt", kNew);
  try {
    load_event_dir(twice.path());
    FAIL() << "two files of one model loaded";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), twice.path() + "/b.txt:1: model 'futurex' is also defined by " + twice.path() +
                                         "/a.txt; keep one of the two files");
  }
  EXPECT_THROW(catalog_with_user_sets(dir.path() + "/absent"), UserError);
}

}  // namespace
}  // namespace roofprof::counters
