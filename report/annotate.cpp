#include "report/annotate.hpp"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include "common/error.hpp"
#include "report/format.hpp"
#include "report/svg.hpp"
#include "report/vector_share.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::report {
namespace {

// Disassembly for display, in the syntax the user asked for.
class Disassembler {
 public:
  explicit Disassembler(bool att) {
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &h_) != CS_ERR_OK)
      throw UserError("capstone: cannot open x86-64 disassembler");
    if (att) cs_option(h_, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
  }
  ~Disassembler() { cs_close(&h_); }
  Disassembler(const Disassembler&) = delete;
  Disassembler& operator=(const Disassembler&) = delete;
  std::string text(const std::vector<uint8_t>& code, uint64_t at) const {
    cs_insn* insn = nullptr;
    size_t n = cs_disasm(h_, code.data(), code.size(), at, 1, &insn);
    if (n == 0) return "(bytes not decoded)";
    std::string out = insn[0].mnemonic;
    if (insn[0].op_str[0]) out += std::string(" ") + insn[0].op_str;
    cs_free(insn, n);
    return out;
  }

 private:
  csh h_ = 0;
};

// The bytes of the instruction at link-time `address` of `elf`, from its file (open as `in`).
std::vector<uint8_t> code_at(const symbolizer::ElfFile& elf, std::ifstream& in, uint64_t address, uint32_t length) {
  for (const auto& s : elf.segments()) {
    if (address < s.vaddr || address + length > s.vaddr + s.filesz) continue;
    std::vector<uint8_t> out(length);
    in.clear();
    in.seekg(std::streamoff(s.offset + (address - s.vaddr)));
    if (!in.read(reinterpret_cast<char*>(out.data()), length)) return {};
    return out;
  }
  return {};
}

struct Counts {
  double flops = 0, read = 0, written = 0;
  uint64_t executions = 0;
  std::map<std::string, double> classes;
  std::map<std::string, double> traffic;  // simulated, below L1: level -> read + write
  bool partial = false;
  void add(const result::AnnotatedInstruction& a) {
    flops += a.flops;
    read += a.bytes_read;
    written += a.bytes_written;
    executions += a.executions;
    for (const auto& [c, v] : a.flops_by_class) classes[c] += v;
    for (const auto& [level, b] : a.traffic) traffic[level] += b.read.value_or(0) + b.write.value_or(0);
    partial = partial || a.partial;
  }
};

// The simulated levels below L1 the annotation has, nearest first ("L2", "L3", "DRAM").
std::vector<std::string> levels_of(const std::vector<result::AnnotatedInstruction>& insns) {
  std::vector<std::string> out;
  for (const auto& a : insns)
    for (const auto& [level, b] : a.traffic)
      if (std::find(out.begin(), out.end(), level) == out.end()) out.push_back(level);
  std::sort(out.begin(), out.end(), [](const std::string& x, const std::string& y) {
    return (x == "DRAM") != (y == "DRAM") ? y == "DRAM" : x < y;
  });
  return out;
}

struct Insn {  // one instruction: its counts and its disassembly
  const result::AnnotatedInstruction* a = nullptr;
  std::string text;
};

struct Line {  // one source line of one function, its instructions in address order
  std::string source;
  Counts counts;
  std::vector<Insn> insns;
};

struct Function {
  std::string name, module;
  Counts counts;
  std::vector<Line> lines;  // in the order of their first instruction
};

// What both renderings show: the region's instructions by function and source line.
struct AnnotationView {
  std::vector<Function> functions;
  double total_flops = 0;
  std::vector<std::string> levels;  // simulated levels below L1
  bool partial = false;             // some instruction's counts are partly in the totals only
};

std::vector<Function> by_function_and_line(const std::vector<result::AnnotatedInstruction>& insns,
                                           std::map<std::string, std::shared_ptr<symbolizer::ElfFile>>& files) {
  std::vector<Function> out;
  std::map<std::pair<std::string, uint64_t>, size_t> fn_index;
  std::map<std::pair<size_t, std::string>, size_t> line_index;
  for (const auto& a : insns) {
    auto& elf = files[a.module];
    if (!elf) elf = symbolizer::ElfFile::open(a.module);
    const symbolizer::Symbol* sym = elf->function_at(a.address);
    const uint64_t start = sym ? sym->value : a.address;
    auto [fi, fresh] = fn_index.try_emplace({a.module, start}, out.size());
    if (fresh) out.push_back(Function{sym ? sym->short_name : fmt::format("{:#x}", a.address), a.module, {}, {}});
    Function& f = out[fi->second];
    f.counts.add(a);
    const std::string source = elf->source_of(a.address).value_or("(no line information)");
    auto [li, new_line] = line_index.try_emplace({fi->second, source}, f.lines.size());
    if (new_line) f.lines.push_back(Line{source, {}, {}});
    f.lines[li->second].counts.add(a);
    f.lines[li->second].insns.push_back(Insn{&a, ""});
  }
  return out;
}

const result::Region& annotated_region(const result::Run& run, const std::string& file, const std::string& name) {
  const result::Region* region = nullptr;
  std::string names;
  for (const auto& r : run.regions) {
    if (r.name == name) region = &r;
    names += (names.empty() ? "" : ", ") + r.name;
  }
  if (!region) throw UserError(fmt::format("{} has no region '{}' (its regions: {})", file, name, names));
  if (region->annotation.empty())
    throw UserError(fmt::format("{} has no counts per instruction for '{}': run it with roofprof run --annotate "
                                "(emulated run: --backend emul, or auto without hardware counters)",
                                file, name));
  return *region;
}

AnnotationView build_view(const result::Region& region, bool att) {
  AnnotationView v;
  std::map<std::string, std::shared_ptr<symbolizer::ElfFile>> files;
  v.functions = by_function_and_line(region.annotation, files);
  v.levels = levels_of(region.annotation);
  const Disassembler dis(att);
  for (auto& f : v.functions) {
    v.total_flops += f.counts.flops;
    std::ifstream code(f.module, std::ios::binary);  // the function's bytes, read once per function
    for (auto& line : f.lines)
      for (auto& insn : line.insns) {
        v.partial = v.partial || insn.a->partial;
        const auto bytes = code_at(*files[f.module], code, insn.a->address, insn.a->length);
        insn.text = bytes.empty() ? "(not in the file)" : dis.text(bytes, insn.a->address);
      }
  }
  return v;
}

Counts counts_of(const result::AnnotatedInstruction& a) {
  Counts c;
  c.add(a);
  return c;
}

constexpr const char* kPartialNote =
    "part of this instruction's accesses or iterations depend on a condition (masked or REP): they are counted in "
    "the region's totals, not on its line";

std::string share(double part, double whole) {
  return whole > 0 ? fmt::format("{:5.1f}%", 100 * part / whole) : "    -";
}

std::string row(const std::string& w_share, const Counts& c, const std::vector<std::string>& levels,
                const std::string& what) {
  std::string simulated;
  for (const auto& level : levels) {
    auto it = c.traffic.find(level);
    simulated += fmt::format("  {:>9}", it == c.traffic.end() ? "0 B" : format_si(it->second, "B"));
  }
  return fmt::format("  {:>6}  {:>8}  {:<22}  {:>9}  {:>9}{}  {:>12}  {}{}\n", w_share, format_si(c.flops, ""),
                     width_shares_text(c.classes), format_si(c.read, "B"), format_si(c.written, "B"), simulated,
                     format_count(double(c.executions)), what, c.partial ? " *" : "");
}

}  // namespace

std::string render_annotation(const result::Run& run, const std::string& file, const std::string& name,
                              const AnnotateOptions& options) {
  const AnnotationView v = build_view(annotated_region(run, file, name), options.att);
  std::string out = fmt::format("{}: W {} flops in its own code, counted per instruction by the emulated run\n",
                                name, format_si(v.total_flops, ""));
  std::string simulated;
  for (const auto& level : v.levels) simulated += fmt::format("  {:>9}", level + " r+w");
  out += fmt::format("  {:>6}  {:>8}  {:<22}  {:>9}  {:>9}{}  {:>12}  {}\n", "of W", "flops", "by width", "L1 read",
                     "L1 write", simulated, "executions", "source line / instruction");
  for (const auto& f : v.functions) {
    out += fmt::format("{} ({})\n", f.name, f.module);
    out += row(share(f.counts.flops, v.total_flops), f.counts, v.levels, "all of " + f.name);
    for (const auto& line : f.lines) {
      out += row(share(line.counts.flops, v.total_flops), line.counts, v.levels, line.source);
      for (const auto& insn : line.insns)
        out += row("", counts_of(*insn.a), v.levels, fmt::format("    {:x}: {}", insn.a->address, insn.text));
    }
  }
  if (v.partial) out += std::string("  * ") + kPartialNote + "\n";
  return out;
}

namespace {

// One row of the HTML table; the share of W shades the row's first cell.
std::string html_row(const char* cls, double of_w, const Counts& c, const std::vector<std::string>& levels,
                     const std::string& what) {
  std::string out = fmt::format("<tr class=\"{}\"><td class=\"num\" style=\"background:rgba(220,60,30,{:.2f})\">{}"
                                "</td>",
                                cls, std::clamp(of_w, 0.0, 1.0) * 0.6, of_w >= 0 ? fmt::format("{:.1f}%", 100 * of_w) : "");
  auto num = [&out](const std::string& text) { out += "<td class=\"num\">" + xml_escape(text) + "</td>"; };
  num(format_si(c.flops, ""));
  out += "<td>" + xml_escape(width_shares_text(c.classes)) + "</td>";
  num(format_si(c.read, "B"));
  num(format_si(c.written, "B"));
  for (const auto& level : levels) {
    auto it = c.traffic.find(level);
    num(it == c.traffic.end() ? "0 B" : format_si(it->second, "B"));
  }
  num(format_count(double(c.executions)));
  return out + "<td>" + xml_escape(what + (c.partial ? " *" : "")) + "</td></tr>\n";
}

}  // namespace

std::string annotation_html(const result::Region& region, const AnnotateOptions& options,
                            const std::string& label) {
  const AnnotationView v = build_view(region, options.att);
  auto part = [&v](double flops) { return v.total_flops > 0 ? flops / v.total_flops : -1.0; };
  std::string out = "<section class=\"annotation\">\n<h2>" +
                    xml_escape(fmt::format("{}{}: W {} flops in its own code, per source line and instruction "
                                           "(emulated run, roofprof run --annotate)",
                                           label.empty() ? "" : label + ": ", region.name,
                                           format_si(v.total_flops, ""))) +
                    "</h2>\n<table class=\"annotation\">\n<thead><tr>";
  std::vector<std::string> heads{"of W", "flops", "by width", "L1 read", "L1 write"};
  for (const auto& level : v.levels) heads.push_back(level + " r+w");
  heads.insert(heads.end(), {"executions", "source line / instruction"});
  for (const auto& h : heads) out += "<th>" + xml_escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& f : v.functions) {
    out += html_row("function", part(f.counts.flops), f.counts, v.levels, f.name + " (" + f.module + ")");
    for (const auto& line : f.lines) {
      out += html_row("line", part(line.counts.flops), line.counts, v.levels, line.source);
      for (const auto& insn : line.insns)
        out += html_row("insn", part(insn.a->flops), counts_of(*insn.a), v.levels,
                        fmt::format("{:x}: {}", insn.a->address, insn.text));
    }
  }
  out += "</tbody>\n</table>\n";
  if (v.partial) out += std::string("<p class=\"note\">* ") + xml_escape(kPartialNote) + "</p>\n";
  return out + "</section>\n";
}

}  // namespace roofprof::report
