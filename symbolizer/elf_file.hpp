#pragma once
// One ELF file on disk: its function symbols (.symtab and .dynsym), load segments,
// dynamic section facts and DWARF line table.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace roofprof::symbolizer {

struct InlinedCopy;  // symbolizer/inlined.hpp
struct CopyEdges;

struct Symbol {
  std::string name;       // as stored (mangled for C++)
  std::string demangled;  // demangled C++ name, or == name
  std::string short_name; // demangled without return type and parameter list ("ns::S::step")
  uint64_t value = 0;     // link-time address (st_value)
  uint64_t size = 0;
  bool global = false;    // GLOBAL or WEAK binding
  // STT_GNU_IFUNC: `value` is the resolver, which the dynamic linker calls once to choose the
  // implementation that calls then reach (libm's cos, libc's memcpy). Breakpoints there time
  // the resolver, not the function.
  bool ifunc = false;
};

struct Segment {  // PT_LOAD
  uint64_t vaddr = 0, offset = 0, filesz = 0, memsz = 0;
  bool exec = false;
};

class ElfFile {
 public:
  // Throws UserError ("cannot read X: ...", "X is not an x86-64 ELF file") on bad input.
  static std::shared_ptr<ElfFile> open(const std::string& path);
  virtual ~ElfFile() = default;

  virtual const std::string& path() const = 0;
  virtual bool is_dyn() const = 0;                      // ET_DYN: PIE executable or shared object
  virtual uint64_t entry() const = 0;                   // e_entry
  virtual const std::vector<Segment>& segments() const = 0;
  // FUNC and IFUNC symbols with a nonzero address from .symtab and .dynsym, deduplicated by
  // (name, value), sorted by value.
  virtual const std::vector<Symbol>& functions() const = 0;
  // The function symbol covering a link-time address, if any.
  virtual const Symbol* function_at(uint64_t vaddr) const = 0;
  virtual bool has_line_info() const = 0;
  // Why the file's own (non-exported) functions have no names: nullopt when it has a symbol
  // table, its own or its debug file's; else "X has no symbol table (stripped...)", naming the
  // debug file looked for and the package that carries it (symbolizer/debug_file.hpp).
  virtual std::optional<std::string> stripped_note() const = 0;
  // Link-time addresses where statements of FILE:LINE begin (is_stmt rows starting a run of
  // that line). `file` matches on whole trailing path components ("solver.c", "src/solver.c").
  // If the line has no code, the next line with code in the same file is used and `*used_line`
  // says which. Empty when the file is unknown or there is no DWARF.
  virtual std::vector<uint64_t> line_addresses(std::string_view file, unsigned line,
                                               unsigned* used_line = nullptr) const = 0;
  // "file:line" of an address when DWARF says so.
  virtual std::optional<std::string> source_of(uint64_t vaddr) const = 0;
  virtual bool imports(std::string_view symbol) const = 0;  // an undefined .dynsym entry
  virtual const std::vector<std::string>& needed() const = 0;  // DT_NEEDED
  virtual bool has_interp() const = 0;                      // PT_INTERP: dynamically linked
  virtual const std::string& interpreter() const = 0;       // PT_INTERP's path ("" without one)
  // Where the lambda whose operator() starts at `vaddr` is written ("prog.cpp", 42: its
  // closure type's DW_AT_decl_file/line), read on first use; nullopt for other code or without
  // DWARF (symbolizer/lambda_lines.hpp).
  virtual std::optional<std::pair<std::string, unsigned>> lambda_place(uint64_t vaddr) const = 0;
  // Inlined copies of functions (DWARF), read on first use; empty without DWARF.
  virtual const std::vector<InlinedCopy>& inlined() const = 0;
  // Where control enters and leaves `copy` (one of inlined()), from the code of the functions
  // holding it.
  virtual CopyEdges edges_of(const InlinedCopy& copy) const = 0;
};

}  // namespace roofprof::symbolizer
