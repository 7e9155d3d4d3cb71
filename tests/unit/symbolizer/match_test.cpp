#include <gtest/gtest.h>

#include <algorithm>

#include "fixture_paths.hpp"
#include "regions/spec.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::symbolizer {
namespace {

using test::fixture;
using test::symbols_named;

std::vector<std::string> names_of(const std::vector<FunctionMatch>& matches) {
  std::vector<std::string> out;
  for (const auto& m : matches) out.push_back(m.name);
  return out;
}

uint64_t value_of(const ElfFile& elf, const std::string& mangled) {
  auto syms = symbols_named(elf, mangled);
  return syms.size() == 1 ? syms[0]->value : 0;
}

class MatchNames : public ::testing::Test {
 protected:
  std::shared_ptr<ElfFile> names = ElfFile::open(fixture("sym_names"));
  std::vector<const ElfFile*> mods{names.get()};
};

TEST_F(MatchNames, ByShortName) {
  auto m = match_functions("ns::Solver::step", mods);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "ns::Solver::step");
  ASSERT_EQ(m[0].sites.size(), 1u);
  EXPECT_EQ(m[0].sites[0].module, fixture("sym_names"));
  EXPECT_EQ(m[0].sites[0].address, value_of(*names, "_ZN2ns6Solver4stepEi"));
  EXPECT_EQ(m[0].sites[0].symbol, "ns::Solver::step(int)");
}

TEST_F(MatchNames, ByMangledAndFullDemangledName) {
  auto mangled = match_functions("_ZN2ns6Solver4stepEi", mods);
  auto full = match_functions("ns::Solver::step(int)", mods);
  ASSERT_EQ(mangled.size(), 1u);
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(mangled[0].sites[0].address, full[0].sites[0].address);
  EXPECT_EQ(names_of(match_functions("ns::Solver::value", mods)), std::vector<std::string>{"ns::Solver::value"});
}

TEST_F(MatchNames, OverloadsStayDistinct) {
  auto m = match_functions("ns::overload", mods);
  EXPECT_EQ(names_of(m), (std::vector<std::string>{"ns::overload(double)", "ns::overload(int)"}));
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].sites[0].address, value_of(*names, "_ZN2ns8overloadEd"));
  EXPECT_EQ(m[1].sites[0].address, value_of(*names, "_ZN2ns8overloadEi"));
  // The full signature picks one.
  EXPECT_EQ(names_of(match_functions("ns::overload(int)", mods)), std::vector<std::string>{"ns::overload"});
}

TEST_F(MatchNames, Templates) {
  auto one = match_functions("ns::twice<int>", mods);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].sites[0].address, value_of(*names, "_ZN2ns5twiceIiEET_S1_"));
  EXPECT_EQ(names_of(match_functions("ns::twice*", mods)),
            (std::vector<std::string>{"ns::twice<double>", "ns::twice<int>"}));
}

TEST_F(MatchNames, GlobOverNamespace) {
  auto m = names_of(match_functions("ns::*", mods));
  EXPECT_EQ(m, (std::vector<std::string>{"ns::Solver::step", "ns::Solver::value", "ns::overload(double)",
                                         "ns::overload(int)", "ns::twice<double>", "ns::twice<int>"}));
}

TEST_F(MatchNames, UnknownNameMatchesNothing) {
  EXPECT_TRUE(match_functions("ns::Solver::stepp", mods).empty());
  EXPECT_TRUE(match_functions("Solver::stepp", mods).empty());
  EXPECT_TRUE(match_functions("tep", mods).empty());  // scopes match whole, never part of a name
}

TEST_F(MatchNames, UnqualifiedNameMatchesInAnyScope) {
  auto m = match_functions("step", mods);  // like gdb's `break step`
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "ns::Solver::step");
  EXPECT_EQ(names_of(match_functions("Solver::step", mods)), std::vector<std::string>{"ns::Solver::step"});
  EXPECT_EQ(names_of(match_functions("ns::Solver::step( int )", mods)), std::vector<std::string>{"ns::Solver::step"});
  EXPECT_EQ(names_of(match_functions("twice", mods)), (std::vector<std::string>{"ns::twice<double>", "ns::twice<int>"}));
}

TEST(Match, AliasesMergeIntoOneSite) {
  auto lib = ElfFile::open(fixture("libsym_lib.so"));
  auto m = match_functions("symlib_api*", {lib.get()});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "symlib_api");  // the shorter of two global names
  ASSERT_EQ(m[0].sites.size(), 1u);
  EXPECT_EQ(m[0].sites[0].address, value_of(*lib, "symlib_api"));
  // Asking for the alias by name names the site by the alias.
  auto alias = match_functions("symlib_api_alias", {lib.get()});
  ASSERT_EQ(alias.size(), 1u);
  EXPECT_EQ(alias[0].name, "symlib_api_alias");
}

TEST(Match, SameNameInSeveralModulesIsOneMatch) {
  auto lib = ElfFile::open(fixture("libsym_lib.so"));
  auto stripped = ElfFile::open(fixture("libsym_lib_stripped.so"));
  auto m = match_functions("symlib_api", {lib.get(), stripped.get()});
  ASSERT_EQ(m.size(), 1u);
  ASSERT_EQ(m[0].sites.size(), 2u);
  EXPECT_EQ(m[0].sites[0].module, fixture("libsym_lib.so"));
  EXPECT_EQ(m[0].sites[1].module, fixture("libsym_lib_stripped.so"));
}

TEST(Match, AllFunctionNames) {
  auto names = ElfFile::open(fixture("sym_names"));
  auto lib = ElfFile::open(fixture("libsym_lib.so"));
  auto all = all_function_names({names.get(), lib.get()});
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
  for (const char* want : {"ns::Solver::step", "ns::overload", "ns::twice<int>", "symlib_api", "main"}) {
    EXPECT_NE(std::find(all.begin(), all.end(), want), all.end()) << want;
  }
}

TEST(ResolveLocation, SymbolAndAddress) {
  auto elf = ElfFile::open(fixture("sym_plain_nopie"));
  uint64_t addr = value_of(*elf, "sym_exported");
  ASSERT_NE(addr, 0u);

  regions::Location sym;
  sym.kind = regions::Location::Kind::Symbol;
  sym.symbol = "sym_exp*";
  auto sites = resolve_location(sym, *elf);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].address, addr);
  EXPECT_EQ(sites[0].symbol, "sym_exported");

  regions::Location at;
  at.kind = regions::Location::Kind::Address;
  at.address = addr + 1;
  sites = resolve_location(at, *elf);
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0].address, addr + 1);
  EXPECT_EQ(sites[0].module, fixture("sym_plain_nopie"));
  EXPECT_EQ(sites[0].symbol, "");

  at.address = 0x10;  // below the first PT_LOAD
  EXPECT_TRUE(resolve_location(at, *elf).empty());
}

}  // namespace
}  // namespace roofprof::symbolizer
