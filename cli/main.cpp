// roofprof: roofline profiler for unmodified Linux binaries.
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/docgen.hpp"
#include "common/command_line.hpp"
#include "common/error.hpp"
#include "common/log.hpp"
#include "common/program.hpp"
#include "common/strings.hpp"
#include "supervisor/ending.hpp"
#include "supervisor/signals.hpp"

namespace {

using roofprof::cli::Runner;

// An error as one line on stderr; a name of megabytes in it is shortened (common/strings.hpp).
void print_error(const std::string& message) {
  std::fprintf(stderr, "roofprof: %s\n", roofprof::shorten_long_words(message).c_str());
}

struct Subcommand {
  const char* name;
  const char* help;
  Runner (*setup)(CLI::App&);  // a subcommand without a program, or
  Runner (*setup_with_program)(CLI::App&, const std::vector<std::string>& program);
  // Runs a program under the signal policy (supervisor/signals.hpp); the others get the
  // signals' dispositions back before they start.
  bool supervises = false;
};

constexpr Subcommand kSubcommands[] = {
    {"run", "trace a program (or attach to one) and measure regions", nullptr, roofprof::cli::setup_run, true},
    {"symbols", "list functions that could be regions (executable and every loaded library)", nullptr,
     roofprof::cli::setup_symbols, true},
    {"survey", "list a program's hot functions (sampled) and, with --backend emul, their exact W and Q", nullptr,
     roofprof::cli::setup_survey, true},
    {"report", "print the table of one or more result files", roofprof::cli::setup_report, nullptr},
    {"annotate", "show a region's source lines and instructions with their flops and bytes (run --annotate)",
     roofprof::cli::setup_annotate, nullptr},
    {"events", "show the hardware event set roofprof uses here or on --pmu MODEL", roofprof::cli::setup_events,
     nullptr},
    {"doctor", "check what this machine can measure and how to fix what is missing", roofprof::cli::setup_doctor,
     nullptr},
    {"ceilings", "measure (or show the cached) peak flop/s, bandwidth and latency of this machine",
     roofprof::cli::setup_ceilings, nullptr},
    {"selftest", "validate W and Q on this machine with kernels of known work and traffic (docs/validation.md)",
     roofprof::cli::setup_selftest, nullptr},
};

const Subcommand* find_subcommand(const std::string& s) {
  for (const auto& c : kSubcommands)
    if (s == c.name) return &c;
  return nullptr;
}

std::vector<std::string> subcommand_names() {
  std::vector<std::string> out;
  for (const auto& c : kSubcommands) out.push_back(c.name);
  return out;
}

std::string subcommand_list() {
  std::string out;
  for (const auto& name : subcommand_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

// The options of a subcommand as the command-line splitter needs them.
std::vector<roofprof::OptionShape> option_shapes(const CLI::App& sub) {
  std::vector<roofprof::OptionShape> out;
  for (const CLI::Option* opt : sub.get_options()) {
    if (!opt->nonpositional()) continue;
    roofprof::OptionShape s;
    for (const auto& n : opt->get_lnames()) s.names.push_back("--" + n);
    for (const auto& n : opt->get_snames()) s.names.push_back("-" + n);
    s.takes_value = opt->get_expected_max() > 0 && opt->get_type_size_max() > 0;  // flags expect 0
    s.multi_value = s.takes_value && (opt->get_items_expected_max() > 1 || opt->get_allow_extra_args());
    out.push_back(std::move(s));
  }
  return out;
}

// "The following argument was not expected: --regoin" -> a line naming it, with the nearest option.
std::string explain_extras(const CLI::App& app, const std::string& what) {
  for (const CLI::App* sub : app.get_subcommands()) {
    std::vector<std::string> names;
    for (const auto& s : option_shapes(*sub))
      for (const auto& n : s.names)
        if (n.size() > 2) names.push_back(n);
    for (const auto& extra : sub->remaining())
      if (extra.size() > 1 && extra[0] == '-')
        return "unknown option '" + extra + "' for roofprof " + sub->get_name() +
               roofprof::did_you_mean_phrase(roofprof::did_you_mean(extra.substr(0, extra.find('=')), names)) +
               " (see roofprof " + sub->get_name() + " --help)";
  }
  return what + " (see roofprof --help)";
}

// The hidden documentation commands (cli/docgen.hpp): `--man [SUBCOMMAND]` prints a man page,
// `--generate-docs DIR` writes every page and the completions' table (run by the build).
int docs_command(const CLI::App& app, const std::vector<std::string>& args) {
  try {
    if (args[0] == "--generate-docs") {
      if (args.size() != 2) throw roofprof::UserError("--generate-docs takes one directory");
      roofprof::cli::generate_docs(app, ROOFPROF_VERSION, args[1]);
      return 0;
    }
    if (args.size() > 2) throw roofprof::UserError("--man takes at most one subcommand");
    const CLI::App* sub = nullptr;
    if (args.size() == 2) {
      if (!find_subcommand(args[1]))
        throw roofprof::UserError("unknown subcommand '" + args[1] + "' (see roofprof --help)");
      sub = app.get_subcommand(args[1]);
    }
    std::fputs(roofprof::cli::man_page(app, sub, ROOFPROF_VERSION).c_str(), stdout);
    return 0;
  } catch (const roofprof::UserError& e) {
    print_error(e.what());
    return roofprof::kUserErrorExit;
  }
}

}  // namespace

// Before main() and every other initializer of roofprof's own (the constructors of its libraries'
// globals): the dynamic loader's work (a millisecond on a quiet machine, tens under load) is all that
// runs without handlers.
__attribute__((constructor(101))) void install_signal_policy_first() {
  roofprof::supervisor::install_signal_policy();
}

// A setup step that failed because a signal interrupted it (a popen'd query cut short) is the
// signal's doing: the run ends as Interrupted does.
int failed_or_interrupted(const std::string& message, int status) {
  if (const int sig = roofprof::supervisor::pending_request_signal()) {
    print_error(roofprof::Interrupted(sig).what());
    return roofprof::supervisor::Ending::requested(sig).exit_code();
  }
  print_error(message);
  return status;
}

int main(int argc, char** argv) {
  // Installed already (install_signal_policy_first): a signal in the first milliseconds neither
  // kills roofprof by its default action nor is lost (supervisor/signals.hpp); subcommands that
  // run no program get the signals back below.
  std::vector<std::string> args(argv + 1, argv + argc);
  CLI::App app{"roofprof: roofline profiler for unmodified Linux binaries"};
  app.set_version_flag("--version", std::string(ROOFPROF_VERSION));
  app.require_subcommand(1);
  std::vector<std::string> program;  // the program and its arguments, never parsed as roofprof's
  std::vector<std::pair<CLI::App*, Runner>> runners;
  std::map<std::string, CLI::App*> subs;
  for (const auto& c : kSubcommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.help);
    runners.emplace_back(sub, c.setup ? c.setup(*sub) : c.setup_with_program(*sub, program));
    subs[c.name] = sub;
  }

  if (!args.empty() && (args[0] == "--man" || args[0] == "--generate-docs")) return docs_command(app, args);

  std::vector<std::string> to_parse;  // argv for CLI11, in reverse order (its vector form)
  try {
    roofprof::log::configure_from_environment();  // ROOFPROF_LOG, ROOFPROF_LOG_FILE (common/log.hpp)
    roofprof::log::line(roofprof::log::Category::Tracer, "roofprof started");
    // `roofprof --region f -- ./app` is `roofprof run --region f -- ./app`.
    bool top_level = args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "--version";
    const Subcommand* cmd = top_level ? nullptr : find_subcommand(args[0]);
    if (!top_level && !cmd && !(args[0].size() > 1 && args[0][0] == '-')) {
      const std::string& word = args[0];
      if (word.find('/') != std::string::npos)
        throw roofprof::UserError("'" + word + "' is not a subcommand; to profile a program: roofprof --region "
                                  "FUNCTION -- " + word + " [ARGS...]");
      throw roofprof::UserError(
          "unknown subcommand '" + word + "'" +
          roofprof::did_you_mean_phrase(roofprof::did_you_mean(word, subcommand_names())) +
          "; subcommands: " + subcommand_list() + " (see roofprof --help)");
    }
    if (!top_level && !cmd) {
      cmd = find_subcommand("run");
      args.insert(args.begin(), "run");
    }
    if (cmd && cmd->setup_with_program) {
      std::vector<std::string> rest(args.begin() + 1, args.end());
      auto split = roofprof::split_command_line(rest, option_shapes(*subs[cmd->name]),
                                                std::string("roofprof ") + cmd->name);
      program = std::move(split.program);
      args.resize(1);
      args.insert(args.end(), split.options.begin(), split.options.end());
    }
  } catch (const roofprof::UserError& e) {
    print_error(e.what());
    return roofprof::kUserErrorExit;
  }

  try {
    to_parse.assign(args.rbegin(), args.rend());
    app.parse(to_parse);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ExtrasError& e) {
    print_error(explain_extras(app, e.what()));
    return roofprof::kUserErrorExit;
  } catch (const CLI::ParseError& e) {
    print_error(std::string(e.what()) + " (see roofprof --help)");
    return roofprof::kUserErrorExit;
  }

  try {
    for (auto& [sub, runner] : runners) {
      if (!sub->parsed()) continue;
      if (!find_subcommand(sub->get_name())->supervises) roofprof::supervisor::release_signal_policy();
      return runner();
    }
  } catch (const roofprof::Interrupted& e) {
    print_error(e.what());
    return e.exit_status();
  } catch (const roofprof::CannotExecute& e) {
    return failed_or_interrupted(e.what(), roofprof::CannotExecute::kExit);
  } catch (const roofprof::UserError& e) {
    return failed_or_interrupted(e.what(), roofprof::kUserErrorExit);
  }
  return 0;
}
