// The program's arguments reach it verbatim: everything after `--`, and in the short form
// everything from the program's name on, even when they look like roofprof's options or a
// multi-value option (--region, --span, -e) stands last before `--`. Unknown options and
// mistyped subcommands are one-line errors with "did you mean", exit status 2.
#include "harness.hpp"

namespace it {
namespace {

// The arguments the fixture printed, in order.
std::vector<std::string> program_args(const RunResult& r) {
  std::vector<std::string> out;
  for (const auto& l : lines(r.out))
    if (l.rfind("argv[", 0) == 0) out.push_back(l.substr(l.find("=<") + 2, l.size() - l.find("=<") - 3));
  return out;
}

struct Case {
  std::vector<std::string> roofprof_args;  // before the program
  bool separator;                          // `--` before the program
  std::vector<std::string> program_args;
};

void expect_verbatim(const Case& c) {
  Sandbox sb;
  std::vector<std::string> argv = c.roofprof_args;
  if (c.separator) argv.push_back("--");
  argv.push_back(fixture("run_argv"));
  argv.insert(argv.end(), c.program_args.begin(), c.program_args.end());
  auto r = sb.roofprof(argv);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(program_args(r), c.program_args) << r.diag();
  json doc = load_result(r);  // roofprof's result went to roofprof.json, not to the program's -o
  EXPECT_EQ(calls(region(doc, "argv_region")), 1) << doc.dump(1);
  std::vector<std::string> command = doc["command"];
  EXPECT_EQ(std::vector<std::string>(command.begin() + 1, command.end()), c.program_args);
}

const std::vector<std::string> kTricky = {"-n", "100", "-q", "--follow-fork", "-o", "x.json", "--help", "--", "-"};

TEST(RunArguments, AfterSeparatorWithRegionLast) {
  expect_verbatim({{"run", "--backend", "time", "--region", "argv_region"}, true, kTricky});
}
TEST(RunArguments, AfterSeparatorWithShortRegionLast) {
  expect_verbatim({{"run", "--backend", "time", "-r", "argv_region"}, true, {"-n", "hi"}});
}
TEST(RunArguments, AfterSeparatorWithSpanLast) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "argv_region", "--span", "s=main..argv_region", "--",
                        fixture("run_argv"), "-q", "--follow-fork", "in.dat"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(program_args(r), (std::vector<std::string>{"-q", "--follow-fork", "in.dat"})) << r.diag();
}
TEST(RunArguments, AfterSeparatorWithEventsLast) {
  expect_verbatim({{"run", "--backend", "time", "--region", "argv_region", "-e", "task-clock"}, true, {"-o", "x.json"}});
}
TEST(RunArguments, ShortFormWithSeparator) {
  expect_verbatim({{"--backend", "time", "--region", "argv_region"}, true, kTricky});
}
TEST(RunArguments, ShortFormWithoutSeparator) {
  expect_verbatim({{"--backend", "time", "--region", "argv_region"}, false, {"-x", "--region", "y", "--help"}});
}
TEST(RunArguments, RunWithoutSeparator) {
  expect_verbatim({{"run", "--backend", "time", "-r", "argv_region", "-q"}, false, {"-n", "1"}});
}
TEST(RunArguments, SeveralRegionsAfterOneOption) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "--region", "argv_region", "main", "--", fixture("run_argv"), "-n"});
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  EXPECT_EQ(program_args(r), std::vector<std::string>{"-n"});
  json doc = load_result(r);
  EXPECT_EQ(calls(region(doc, "argv_region")), 1);
  EXPECT_EQ(calls(region(doc, "main")), 1);
}

void expect_one_line_error(const std::vector<std::string>& args, const std::string& must_contain) {
  Sandbox sb;
  auto r = sb.roofprof(args);
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find(must_contain), std::string::npos) << r.diag();
  EXPECT_FALSE(fs::exists(r.file("roofprof.json"))) << r.diag();
}

TEST(RunArguments, UnknownOptionSuggestsTheClosest) {
  expect_one_line_error({"run", "--regoin", "argv_region", "--", fixture("run_argv")},
                        "unknown option '--regoin' for roofprof run (did you mean --region?)");
  expect_one_line_error({"--regoin", "argv_region", "--", fixture("run_argv")}, "(did you mean --region?)");
  expect_one_line_error({"symbols", "--mach", "x", "--", fixture("run_argv")}, "(did you mean --match?)");
  expect_one_line_error({"report", "--htm", "a.html", "x.json"}, "unknown option '--htm' for roofprof report");
}
TEST(RunArguments, MistypedSubcommandSuggestsTheClosest) {
  expect_one_line_error({"reprot", "a.json"}, "unknown subcommand 'reprot' (did you mean report?)");
  expect_one_line_error({"symbls"}, "(did you mean symbols?)");
  expect_one_line_error({"./app"}, "roofprof --region FUNCTION -- ./app");
}
TEST(RunArguments, OptionWithoutValue) {
  expect_one_line_error({"run", "--region", "--", fixture("run_argv")}, "option --region needs a value");
}

}  // namespace
}  // namespace it
