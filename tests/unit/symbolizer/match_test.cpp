#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

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

// gfortran fixtures (tests/fixtures/real/generic_*.f90), with DWARF and without: a generic
// interface is its specific procedures, named after it; a USE-re-exported name the procedure of
// the module it comes from; both only where nothing has the name itself.
TEST(Match, FortranGenericAndReexportedNames) {
  for (std::string program : {"real_fortran_generic_g", "real_fortran_generic_nog"}) {
    auto elf = ElfFile::open(fixture(program));
    std::vector<const ElfFile*> mods{elf.get()};
    const std::vector<std::string> specifics{"calbec_m::calbec_gamma", "calbec_m::calbec_k"};
    EXPECT_EQ(names_of(match_functions("calbec", mods)), specifics) << program;
    EXPECT_EQ(names_of(match_functions("calbec_m::calbec", mods)), specifics) << program;
    EXPECT_TRUE(match_functions("other_m::calbec", mods).empty()) << program;
    EXPECT_EQ(names_of(match_functions("calbec_k", mods)), std::vector<std::string>{"calbec_m::calbec_k"});
    EXPECT_EQ(names_of(match_functions("fft_scalar::cft_1z", mods)), std::vector<std::string>{"calbec_m::cft_1z"});
    EXPECT_TRUE(match_functions("fft_scalar::cft_2z", mods).empty()) << program;
    EXPECT_TRUE(match_functions("calbec_(double)", mods).empty()) << program;
  }
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

// tests/fixtures/run/signatures.cpp: overloads with pointer parameters, operators, a lambda and
// LAMMPS-like namespaced classes.
unsigned line_of_marker(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(SOURCE_DIR) + "/" + file);
  std::string text;
  for (unsigned n = 1; std::getline(in, text); ++n)
    if (text.find(marker) != std::string::npos) return n;
  return 0;
}

class MatchSignatures : public ::testing::Test {
 protected:
  std::shared_ptr<ElfFile> elf = ElfFile::open(fixture("run_signatures"));
  std::vector<const ElfFile*> mods{elf.get()};
  // The address each pattern resolves to, when it is exactly one site.
  uint64_t one_site(const std::string& pattern) {
    auto m = match_functions(pattern, mods);
    if (m.size() != 1 || m[0].sites.size() != 1) return 0;
    return m[0].sites[0].address;
  }
};

TEST_F(MatchSignatures, SignaturesNameTheirOverload) {
  const uint64_t pair = value_of(*elf, "_Z5scalePfi"), one = value_of(*elf, "_Z5scalePf");
  ASSERT_NE(pair, 0u);
  EXPECT_EQ(one_site("scale(float*,int)"), pair);
  EXPECT_EQ(one_site("scale(float *, int)"), pair);
  EXPECT_EQ(one_site("scale(float*)"), one);
  EXPECT_EQ(one_site("scale(double*, int)"), value_of(*elf, "_Z5scalePdi"));
  EXPECT_TRUE(match_functions("scale(int*)", mods).empty());
  // Without a parameter list: the three overloads, each shown with its signature.
  EXPECT_EQ(names_of(match_functions("scale", mods)),
            (std::vector<std::string>{"scale(double*, int)", "scale(float*)", "scale(float*, int)"}));
}

TEST_F(MatchSignatures, Operators) {
  EXPECT_EQ(one_site("Kernel::operator()"), value_of(*elf, "_ZNK6KernelclEi"));
  EXPECT_EQ(one_site("Kernel::operator()(int) const"), value_of(*elf, "_ZNK6KernelclEi"));
  EXPECT_EQ(one_site("operator+"), value_of(*elf, "_Zpl3VecS_"));
  EXPECT_EQ(one_site("operator+(Vec, Vec)"), value_of(*elf, "_Zpl3VecS_"));
}

TEST_F(MatchSignatures, LambdaByEnclosingFunctionAndLine) {
  const uint64_t lambda = value_of(*elf, "_ZZ4mainENKUliE_clEi");
  ASSERT_NE(lambda, 0u);
  const unsigned line = line_of_marker("tests/fixtures/run/signatures.cpp", "// LAMBDA_LINE");
  ASSERT_GT(line, 0u);
  EXPECT_EQ(one_site("main::lambda@signatures.cpp:" + std::to_string(line)), lambda);
  EXPECT_EQ(one_site("main::lambda@" + std::to_string(line)), lambda);
  EXPECT_EQ(one_site("lambda@run/signatures.cpp:" + std::to_string(line)), lambda);
  EXPECT_TRUE(match_functions("main::lambda@" + std::to_string(line - 1), mods).empty());
  EXPECT_TRUE(match_functions("main::lambda@other.cpp:" + std::to_string(line), mods).empty());
  EXPECT_TRUE(match_functions("scale::lambda@" + std::to_string(line), mods).empty());
  EXPECT_EQ(one_site("main::{lambda(int)#1}::operator()"), lambda);  // as roofprof shows it
  EXPECT_EQ(elf->source_of(lambda), "signatures.cpp:" + std::to_string(line));
}

TEST(MatchLambdas, ByTheLineItIsWrittenOnOrItsFirstInstructions) {
  const unsigned written = line_of_marker("tests/fixtures/run/signatures.cpp", "// LAMBDA2_LINE");
  const unsigned body = line_of_marker("tests/fixtures/run/signatures.cpp", "// LAMBDA2_BODY");
  ASSERT_GT(body, written);
  for (const char* build : {"run_signatures", "sym_signatures_O2"}) {
    auto elf = ElfFile::open(fixture(build));
    const uint64_t cube = value_of(*elf, "_ZZ4mainENKUliE0_clEi");  // main::{lambda(int)#2}::operator()
    ASSERT_NE(cube, 0u) << build;
    auto m = match_functions("main::lambda@signatures.cpp:" + std::to_string(written), {elf.get()});
    ASSERT_EQ(m.size(), 1u) << build;
    ASSERT_EQ(m[0].sites.size(), 1u) << build;
    EXPECT_EQ(m[0].sites[0].address, cube) << build;
    EXPECT_EQ(elf->lambda_place(cube), std::make_pair(std::string("signatures.cpp"), written)) << build;
  }
  // Optimised, the body's line is where its code begins: that line names it too, as in gdb.
  auto o2 = ElfFile::open(fixture("sym_signatures_O2"));
  const uint64_t cube = value_of(*o2, "_ZZ4mainENKUliE0_clEi");
  ASSERT_EQ(o2->source_of(cube), "signatures.cpp:" + std::to_string(body));
  auto m = match_functions("main::lambda@" + std::to_string(body), {o2.get()});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].sites[0].address, cube);
  EXPECT_TRUE(match_functions("main::lambda@" + std::to_string(body + 1), {o2.get()}).empty());
}

TEST_F(MatchSignatures, GlobsMatchAtAnyScope) {
  EXPECT_EQ(names_of(match_functions("NPair*::build", mods)),
            (std::vector<std::string>{"LAMMPS_NS::NPairFull::build", "LAMMPS_NS::NPairHalf::build"}));
  EXPECT_EQ(names_of(match_functions("PairLJCut::*", mods)),
            (std::vector<std::string>{"LAMMPS_NS::PairLJCut::compute", "LAMMPS_NS::PairLJCut::settings"}));
  EXPECT_EQ(names_of(match_functions("LAMMPS_NS::PairLJCut::*", mods)),
            (std::vector<std::string>{"LAMMPS_NS::PairLJCut::compute", "LAMMPS_NS::PairLJCut::settings"}));
  // A glob over overloads keeps each one's signature in its name, and so does a glob that
  // chooses one by its signature (two such globs give two names, not two "scale").
  EXPECT_EQ(names_of(match_functions("sca*", mods)),
            (std::vector<std::string>{"scale(double*, int)", "scale(float*)", "scale(float*, int)"}));
  EXPECT_EQ(names_of(match_functions("s*e(float*, int)", mods)), std::vector<std::string>{"scale(float*, int)"});
  EXPECT_EQ(names_of(match_functions("s*e(double*, int)", mods)), std::vector<std::string>{"scale(double*, int)"});
}

}  // namespace
}  // namespace roofprof::symbolizer
