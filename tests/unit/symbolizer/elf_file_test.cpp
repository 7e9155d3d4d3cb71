#include "symbolizer/elf_file.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "common/error.hpp"
#include "fixture_paths.hpp"

namespace roofprof::symbolizer {
namespace {

using test::fixture;
using test::symbols_named;

std::string error_of(const std::string& path) {
  try {
    ElfFile::open(path);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(ElfFile, MissingFileNamesThePath) {
  std::string msg = error_of("/nonexistent/roofprof-no-such-file");
  EXPECT_EQ(msg.rfind("cannot read /nonexistent/roofprof-no-such-file: No such file or directory", 0), 0u)
      << msg;
}

TEST(ElfFile, DirectoryIsNotAFile) {
  std::string msg = error_of("/tmp");
  EXPECT_EQ(msg.rfind("cannot read /tmp: not a regular file", 0), 0u) << msg;
}

TEST(ElfFile, TextFileIsNotElf) {
  std::string path = std::string(SOURCE_DIR) + "/tests/fixtures/symbolizer/plain.c";
  std::string msg = error_of(path);
  EXPECT_EQ(msg.rfind(path + " is not an ELF file", 0), 0u) << msg;
}

TEST(ElfFile, EmptyFileIsNotElf) {
  std::string path = ::testing::TempDir() + "roofprof_sym_empty";
  std::ofstream(path).close();
  std::string msg = error_of(path);
  EXPECT_EQ(msg.rfind(path + " is not an ELF file", 0), 0u) << msg;
}

TEST(ElfFile, Elf32IsRejected) {
  // A minimal 32-bit ELF header: ELFCLASS32, i386.
  std::string path = ::testing::TempDir() + "roofprof_sym_elf32";
  unsigned char hdr[52] = {0x7f, 'E', 'L', 'F', 1, 1, 1};
  hdr[16] = 2;   // ET_EXEC
  hdr[18] = 3;   // EM_386
  hdr[20] = 1;   // EV_CURRENT
  hdr[40] = 52;  // e_ehsize
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(hdr), sizeof hdr);
  std::string msg = error_of(path);
  EXPECT_EQ(msg.rfind(path + " is not an x86-64 ELF file", 0), 0u) << msg;
}

void expect_sorted_and_unique(const ElfFile& elf) {
  const auto& fns = elf.functions();
  for (size_t i = 1; i < fns.size(); ++i) {
    ASSERT_LE(fns[i - 1].value, fns[i].value) << fns[i].name;
    ASSERT_FALSE(fns[i - 1].value == fns[i].value && fns[i - 1].name == fns[i].name) << fns[i].name;
  }
}

TEST(ElfFile, PieExecutable) {
  auto elf = ElfFile::open(fixture("sym_plain_pie"));
  EXPECT_TRUE(elf->is_dyn());
  EXPECT_TRUE(elf->has_interp());
  EXPECT_EQ(elf->interpreter(), "/lib64/ld-linux-x86-64.so.2");
  EXPECT_EQ(elf->path(), fixture("sym_plain_pie"));
  ASSERT_EQ(symbols_named(*elf, "sym_exported").size(), 1u);
  ASSERT_EQ(symbols_named(*elf, "sym_local").size(), 1u);
  EXPECT_TRUE(symbols_named(*elf, "sym_exported")[0]->global);
  EXPECT_FALSE(symbols_named(*elf, "sym_local")[0]->global);
  EXPECT_EQ(elf->needed(), std::vector<std::string>{"libc.so.6"});
  EXPECT_TRUE(elf->imports("printf"));
  EXPECT_FALSE(elf->imports("sym_exported"));
  expect_sorted_and_unique(*elf);
}

TEST(ElfFile, NonPieExecutable) {
  auto elf = ElfFile::open(fixture("sym_plain_nopie"));
  EXPECT_FALSE(elf->is_dyn());
  ASSERT_EQ(symbols_named(*elf, "sym_exported").size(), 1u);
  EXPECT_GE(symbols_named(*elf, "sym_exported")[0]->value, 0x400000u);
  EXPECT_GE(elf->entry(), 0x400000u);
  ASSERT_FALSE(elf->segments().empty());
  EXPECT_EQ(elf->segments().front().vaddr, 0x400000u);
  EXPECT_TRUE(std::any_of(elf->segments().begin(), elf->segments().end(),
                          [](const Segment& s) { return s.exec; }));
}

TEST(ElfFile, StaticExecutable) {
  auto elf = ElfFile::open(fixture("sym_plain_static"));
  EXPECT_FALSE(elf->is_dyn());
  EXPECT_FALSE(elf->has_interp());
  EXPECT_TRUE(elf->needed().empty());
  EXPECT_EQ(symbols_named(*elf, "sym_exported").size(), 1u);
  EXPECT_EQ(symbols_named(*elf, "sym_local").size(), 1u);
  // libc is linked in, including its IFUNC resolvers (memcpy is a GNU_IFUNC symbol).
  EXPECT_EQ(symbols_named(*elf, "memcpy").size(), 1u);
  expect_sorted_and_unique(*elf);
}

TEST(ElfFile, StrippedExecutableLosesLocalNames) {
  auto full = ElfFile::open(fixture("sym_plain_pie"));
  auto stripped = ElfFile::open(fixture("sym_plain_stripped"));
  EXPECT_FALSE(full->functions().empty());
  EXPECT_TRUE(symbols_named(*stripped, "sym_local").empty());
  EXPECT_TRUE(symbols_named(*stripped, "sym_exported").empty());  // not exported without -rdynamic
  EXPECT_FALSE(stripped->has_line_info());
  EXPECT_EQ(stripped->entry(), full->entry());
}

TEST(ElfFile, StrippedExecutableKeepsExportedNames) {
  auto full = ElfFile::open(fixture("sym_plain_rdynamic"));
  auto stripped = ElfFile::open(fixture("sym_plain_rdynamic_stripped"));
  ASSERT_EQ(symbols_named(*stripped, "sym_exported").size(), 1u);
  EXPECT_EQ(symbols_named(*stripped, "sym_exported")[0]->value, symbols_named(*full, "sym_exported")[0]->value);
  EXPECT_TRUE(symbols_named(*stripped, "sym_local").empty());
}

TEST(ElfFile, SharedObjectVersionsAndAliases) {
  auto elf = ElfFile::open(fixture("libsym_lib.so"));
  EXPECT_TRUE(elf->is_dyn());
  EXPECT_FALSE(elf->has_interp());
  auto api = symbols_named(*elf, "symlib_api");
  auto alias = symbols_named(*elf, "symlib_api_alias");
  ASSERT_EQ(api.size(), 1u);  // .symtab and .dynsym entries merged
  ASSERT_EQ(alias.size(), 1u);
  EXPECT_EQ(api[0]->value, alias[0]->value);
  EXPECT_EQ(symbols_named(*elf, "symlib_helper").size(), 1u);
  // .symtab names it "symlib_ver@@SYMLIB_2.0": the suffix is stripped.
  ASSERT_EQ(symbols_named(*elf, "symlib_ver").size(), 1u);
  EXPECT_EQ(symbols_named(*elf, "symlib_ver")[0]->value, symbols_named(*elf, "symlib_ver_impl")[0]->value);
  for (const auto& s : elf->functions()) EXPECT_EQ(s.name.find('@'), std::string::npos) << s.name;
  expect_sorted_and_unique(*elf);
}

TEST(ElfFile, StrippedSharedObjectKeepsExports) {
  auto full = ElfFile::open(fixture("libsym_lib.so"));
  auto elf = ElfFile::open(fixture("libsym_lib_stripped.so"));
  ASSERT_EQ(symbols_named(*elf, "symlib_api").size(), 1u);
  EXPECT_EQ(symbols_named(*elf, "symlib_api")[0]->value, symbols_named(*full, "symlib_api")[0]->value);
  EXPECT_EQ(symbols_named(*elf, "symlib_ver").size(), 1u);
  EXPECT_TRUE(symbols_named(*elf, "symlib_helper").empty());
  EXPECT_TRUE(symbols_named(*elf, "symlib_ver_impl").empty());
}

TEST(ElfFile, CxxNamesAreDemangledOnce) {
  auto elf = ElfFile::open(fixture("sym_names"));
  auto step = symbols_named(*elf, "_ZN2ns6Solver4stepEi");
  ASSERT_EQ(step.size(), 1u);
  EXPECT_EQ(step[0]->demangled, "ns::Solver::step(int)");
  EXPECT_EQ(step[0]->short_name, "ns::Solver::step");
  auto twice = symbols_named(*elf, "_ZN2ns5twiceIdEET_S1_");
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_EQ(twice[0]->demangled, "double ns::twice<double>(double)");
  EXPECT_EQ(twice[0]->short_name, "ns::twice<double>");
  auto main_sym = symbols_named(*elf, "main");
  ASSERT_EQ(main_sym.size(), 1u);
  EXPECT_EQ(main_sym[0]->demangled, "main");
  EXPECT_EQ(main_sym[0]->short_name, "main");
}

TEST(ElfFile, FunctionAt) {
  auto elf = ElfFile::open(fixture("sym_plain_pie"));
  const Symbol* f = symbols_named(*elf, "sym_exported")[0];
  ASSERT_GT(f->size, 1u);
  EXPECT_EQ(elf->function_at(f->value), f);
  EXPECT_EQ(elf->function_at(f->value + f->size - 1), f);
  EXPECT_EQ(elf->function_at(0), nullptr);
  const Symbol* after = elf->function_at(f->value + f->size);
  EXPECT_NE(after, f);
}

TEST(ElfFile, FunctionAtWithoutSizeRunsToTheNextSymbol) {
  auto elf = ElfFile::open(fixture("sym_plain_pie"));
  auto asm_fn = symbols_named(*elf, "sym_asm_nosize");
  ASSERT_EQ(asm_fn.size(), 1u);
  EXPECT_EQ(asm_fn[0]->size, 0u);
  EXPECT_EQ(elf->function_at(asm_fn[0]->value + 2), asm_fn[0]);  // the ret
}

}  // namespace
}  // namespace roofprof::symbolizer
