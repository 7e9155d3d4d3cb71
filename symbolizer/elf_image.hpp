#pragma once
// The libelf-backed ElfFile: symbols and segments read at open, DWARF lines on first use.
// Symbols and lines also come from a separate debug file when one is installed.
#include <memory>
#include <mutex>
#include <unordered_set>

#include "symbolizer/debug_file.hpp"
#include "symbolizer/elf_file.hpp"
#include "symbolizer/elf_handle.hpp"
#include "symbolizer/inlined.hpp"
#include "symbolizer/lambda_lines.hpp"
#include "symbolizer/line_table.hpp"

namespace roofprof::symbolizer {

struct RawSymbol;  // a symbol table entry before merging and demangling

class ElfImage final : public ElfFile {
 public:
  explicit ElfImage(const std::string& path);

  const std::string& path() const override { return path_; }
  bool is_dyn() const override { return handle_.header().e_type == ET_DYN; }
  uint64_t entry() const override { return handle_.header().e_entry; }
  const std::vector<Segment>& segments() const override { return segments_; }
  const std::vector<Symbol>& functions() const override { return functions_; }
  const Symbol* function_at(uint64_t vaddr) const override;
  bool has_line_info() const override;
  std::optional<std::string> stripped_note() const override;
  std::vector<uint64_t> line_addresses(std::string_view file, unsigned line,
                                       unsigned* used_line) const override;
  std::optional<std::string> source_of(uint64_t vaddr) const override;
  bool imports(std::string_view symbol) const override;
  const std::vector<std::string>& needed() const override { return needed_; }
  bool has_interp() const override { return has_interp_; }
  const std::string& interpreter() const override { return interpreter_; }
  std::optional<std::pair<std::string, unsigned>> lambda_place(uint64_t vaddr) const override;
  const std::vector<InlinedCopy>& inlined() const override;
  CopyEdges edges_of(const InlinedCopy& copy) const override;

 private:
  void read_segments();
  void open_debug_file();
  void read_symbols(Elf* elf, std::vector<RawSymbol>& out);
  void build_functions(std::vector<RawSymbol>& raw);
  void read_dynamic();
  const LineTable& lines() const;

  std::string path_;
  ElfHandle handle_;
  std::unique_ptr<ElfHandle> debug_;  // separate debug file, when the file itself lacks DWARF
  bool has_symtab_ = false;           // .symtab in the file or its debug file
  DebugSearch debug_search_;
  mutable std::once_flag stripped_once_;
  mutable std::optional<std::string> stripped_note_;
  std::vector<Segment> segments_;
  std::vector<Symbol> functions_;
  std::unordered_set<std::string> imports_;
  std::vector<std::string> needed_;
  bool has_interp_ = false;
  std::string interpreter_;

  mutable std::once_flag lines_once_;
  mutable LineTable lines_;
  mutable std::once_flag lambdas_once_;
  mutable std::map<uint64_t, LambdaPlace> lambdas_;
  mutable std::once_flag inlined_once_;
  mutable std::vector<InlinedCopy> inlined_;
};

}  // namespace roofprof::symbolizer
