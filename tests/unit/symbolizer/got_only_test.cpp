// symbolizer::only_called_through_got: which exported functions of a library every call of
// which goes through the dynamic linker (the combined mode's rule, docs/preload.md).
#include "symbolizer/got_only.hpp"

#include <gtest/gtest.h>

#include "common/error.hpp"
#include "fixture_paths.hpp"

namespace roofprof::symbolizer {
namespace {

uint64_t address_of(const ElfFile& elf, const std::string& name) {
  auto found = test::symbols_named(elf, name);
  EXPECT_EQ(found.size(), 1u) << name;
  return found.empty() ? 0 : found[0]->value;
}

TEST(GotOnly, ExactlyTheExportsWithNoDirectReferenceInTheirLibrary) {
  std::string lib = test::fixture("libsym_gotonly.so");
  auto elf = ElfFile::open(lib);
  std::map<std::string, uint64_t> at;
  for (const char* name : {"got_free", "got_called_inside", "got_caller", "got_in_table", "got_recursive",
                           "got_hidden", "got_uses_hidden"})
    at[name] = address_of(*elf, name);
  std::set<uint64_t> all;
  for (const auto& [name, a] : at) all.insert(a);
  auto taken = only_called_through_got(lib, all);
  std::set<uint64_t> want{at["got_free"], at["got_caller"], at["got_recursive"], at["got_uses_hidden"]};
  // Not: got_called_inside (a direct call through its hidden alias), got_in_table (its address
  // in data), got_hidden (not exported).
  EXPECT_EQ(taken, want);
}

TEST(GotOnly, OnlyCandidatesAreAnswered) {
  std::string lib = test::fixture("libsym_gotonly.so");
  auto elf = ElfFile::open(lib);
  uint64_t free_fn = address_of(*elf, "got_free");
  EXPECT_EQ(only_called_through_got(lib, {free_fn}), std::set<uint64_t>{free_fn});
  EXPECT_TRUE(only_called_through_got(lib, {}).empty());
  EXPECT_TRUE(only_called_through_got(lib, {free_fn + 1}).empty());  // not a function entry
}

// A static function is never the agent's, whatever references it.
TEST(GotOnly, FileLocalFunctionsStayWithBreakpoints) {
  std::string lib = test::fixture("libsym_lib.so");
  auto elf = ElfFile::open(lib);
  uint64_t helper = address_of(*elf, "symlib_helper"), api = address_of(*elf, "symlib_api");
  EXPECT_EQ(only_called_through_got(lib, {helper, api}), std::set<uint64_t>{api});
}

TEST(GotOnly, UnreadableFileIsUserError) {
  EXPECT_THROW(only_called_through_got("/nonexistent/lib.so", {1}), UserError);
}

}  // namespace
}  // namespace roofprof::symbolizer
