#include "cli/docgen.hpp"

#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <vector>

#include "cli/command.hpp"
#include "common/error.hpp"

namespace fs = std::filesystem;

namespace roofprof::cli {

namespace {

// Text as roff reads it: backslashes and dashes escaped, no line starting with a control character.
std::string roff(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else out += c;
    if (c == '\n') out += "\\&";
  }
  return (!out.empty() && (out[0] == '.' || out[0] == '\'')) ? "\\&" + out : out;
}

std::vector<std::string> option_names(const CLI::Option& opt) {
  std::vector<std::string> out;
  for (const auto& n : opt.get_snames()) out.push_back("-" + n);
  for (const auto& n : opt.get_lnames()) out.push_back("--" + n);
  return out;
}

bool takes_value(const CLI::Option& opt) { return opt.get_expected_max() > 0 && opt.get_type_size_max() > 0; }

// "TEXT:{process,thread}" -> {"process", "thread"}: the values CLI::IsMember accepts.
std::vector<std::string> choices(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const auto open = type.find('{');
  const auto close = type.find('}', open == std::string::npos ? 0 : open);
  std::vector<std::string> out;
  if (open == std::string::npos || close == std::string::npos) return out;
  std::string list = type.substr(open + 1, close - open - 1);
  for (size_t at = 0; at <= list.size();) {
    size_t comma = list.find(',', at);
    if (comma == std::string::npos) comma = list.size();
    if (comma > at) out.push_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* opt : app.get_options())
    if (!opt->get_group().empty()) out.push_back(opt);  // CLI11: an empty group hides an option
  return out;
}

// Subcommands that start a program say so in their footer (cli/command.hpp).
bool takes_program(const CLI::App& sub) { return sub.get_footer().find(kProgramFooter) != std::string::npos; }

std::string option_item(const CLI::Option& opt) {
  std::string head;
  if (opt.get_positional())
    return ".TP\n\\fI" + roff(opt.get_name()) + "\\fR...\n" + roff(opt.get_description()) + "\n";
  for (const auto& n : option_names(opt)) head += (head.empty() ? "" : ", ") + ("\\fB" + roff(n) + "\\fR");
  if (takes_value(opt)) head += " \\fI" + roff(opt.get_type_name()) + "\\fR";
  return ".TP\n" + head + "\n" + roff(opt.get_description()) + "\n";
}

std::string synopsis(const CLI::App& sub) {
  std::string s = ".SH SYNOPSIS\n.B roofprof " + roff(sub.get_name()) + "\n[\\fIOPTIONS\\fR]";
  for (const CLI::Option* opt : sub.get_options())
    if (opt->get_positional()) s += " [\\fI" + roff(opt->get_name()) + "\\fR...]";
  if (takes_program(sub)) s += " [\\fB\\-\\-\\fR] \\fIPROGRAM\\fR [\\fIARGS\\fR...]";
  return s + "\n";
}

std::string header(const std::string& name, const std::string& summary, const std::string& version) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return fmt::format(".TH {} 1 \"\" \"roofprof {}\" \"User Commands\"\n.SH NAME\n{} \\- {}\n", roff(upper),
                     version, roff(name), roff(summary));
}

std::string files_section() {
  return ".SH FILES\n.TP\n\\fIPREFIX\\fR/lib/roofprof/\n"
         "The companions roofprof finds next to itself (bin/../lib/roofprof): the in-process agent, the Valgrind "
         "tool and, in an install, the Valgrind engine it runs under, and the selftest kernels.\n"
         ".TP\n\\fIPREFIX\\fR/share/doc/roofprof/\nThe documentation (README.md, docs/).\n";
}

std::string sub_page(const CLI::App& app, const CLI::App& sub, const std::string& version) {
  std::string page = header("roofprof-" + sub.get_name(), sub.get_description(), version) + synopsis(sub);
  page += ".SH DESCRIPTION\n" + roff(sub.get_description()) + ".\n";
  if (!sub.get_footer().empty()) page += ".PP\n" + roff(sub.get_footer()) + "\n";
  page += ".SH OPTIONS\n";
  for (const CLI::Option* opt : visible_options(sub)) page += option_item(*opt);
  return page + files_section() + ".SH SEE ALSO\n.BR " + roff(app.get_name().empty() ? "roofprof" : app.get_name()) +
         " (1)\n";
}

std::string top_page(const CLI::App& app, const std::string& version) {
  std::string page = header("roofprof", "roofline profiler for unmodified Linux binaries", version);
  page += ".SH SYNOPSIS\n.B roofprof\n\\fISUBCOMMAND\\fR [\\fIOPTIONS\\fR]\n.br\n.B roofprof\n"
          "\\fB\\-\\-region\\fR \\fIFUNCTION\\fR [\\fIOPTIONS\\fR] \\fB\\-\\-\\fR \\fIPROGRAM\\fR [\\fIARGS\\fR...]\n";
  page += ".SH DESCRIPTION\n" + roff(app.get_description()) +
          ".\nWithout a subcommand, options before the program are those of \\fBroofprof run\\fR.\n";
  page += ".SH SUBCOMMANDS\n";
  for (const CLI::App* sub : app.get_subcommands({}))
    page += ".TP\n\\fBroofprof " + roff(sub->get_name()) + "\\fR\n" + roff(sub->get_description()) +
            " (roofprof\\-" + roff(sub->get_name()) + "(1)).\n";
  page += ".SH OPTIONS\n";
  for (const CLI::Option* opt : visible_options(app)) page += option_item(*opt);
  page += ".SH EXIT STATUS\nThe program's exit status for \\fBrun\\fR; 2 for bad input (with a one-line error on "
          "stderr).\n";
  page += files_section() + ".SH SEE ALSO\n";
  std::string see;
  for (const CLI::App* sub : app.get_subcommands({}))
    see += (see.empty() ? "" : ",\n") + (".BR roofprof\\-" + roff(sub->get_name()) + " (1)");
  return page + see + "\n";
}

std::string quoted(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return "'" + out + "'";
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw UserError(fmt::format("cannot write {}", path.string()));
}

}  // namespace

std::string man_page(const CLI::App& app, const CLI::App* sub, const std::string& version) {
  return sub ? sub_page(app, *sub, version) : top_page(app, version);
}

std::string completion_table(const CLI::App& app) {
  std::string subs, options, valued, values, program;
  for (const CLI::App* sub : app.get_subcommands({})) {
    const std::string name = sub->get_name();
    subs += (subs.empty() ? "" : " ") + name;
    std::vector<std::string> all, with_value;
    for (const CLI::Option* opt : visible_options(*sub)) {
      if (opt->get_positional()) continue;
      for (const auto& n : option_names(*opt)) {
        all.push_back(n);
        if (!takes_value(*opt)) continue;
        with_value.push_back(n);
        if (auto c = choices(*opt); !c.empty()) values += fmt::format("    '{} {}') echo {} ;;\n", name, n, quoted(c));
      }
    }
    options += fmt::format("    {}) echo {} ;;\n", name, quoted(all));
    valued += fmt::format("    {}) echo {} ;;\n", name, quoted(with_value));
    if (takes_program(*sub)) program += (program.empty() ? "" : "|") + name;
  }
  return "# Generated by roofprof --generate-docs from its CLI11 definitions (cli/docgen.cpp): do not edit.\n"
         "_roofprof_subcommands='" + subs + "'\n"
         "_roofprof_options() {\n  case $1 in\n" + options + "  esac\n}\n"
         "_roofprof_valued() {\n  case $1 in\n" + valued + "  esac\n}\n"
         "_roofprof_choices() {\n  case \"$1 $2\" in\n" + values + "  esac\n}\n"
         "_roofprof_takes_program() {\n  case $1 in\n    " + program + ") return 0 ;;\n  esac\n  return 1\n}\n";
}

void generate_docs(const CLI::App& app, const std::string& version, const std::string& dir) {
  const fs::path man = fs::path(dir) / "man" / "man1";
  std::error_code ec;
  fs::create_directories(man, ec);
  if (ec) throw UserError(fmt::format("cannot create {}: {}", man.string(), ec.message()));
  write_file(man / "roofprof.1", man_page(app, nullptr, version));
  for (const CLI::App* sub : app.get_subcommands({}))
    write_file(man / ("roofprof-" + sub->get_name() + ".1"), man_page(app, sub, version));
  write_file(fs::path(dir) / "completion-table.sh", completion_table(app));
}

}  // namespace roofprof::cli
