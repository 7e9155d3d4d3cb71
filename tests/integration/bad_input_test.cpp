// Bad input: exit status 2, exactly one line on stderr, no stack trace or abort.
#include "harness.hpp"

namespace it {
namespace {

void expect_one_line_error(const RunResult& r) {
  EXPECT_EQ(r.exit_code(), 2) << r.diag();
  auto ls = lines(r.err);
  EXPECT_EQ(ls.size(), 1u) << r.diag();
  for (const char* bad : {"terminate called", "what()", "Aborted", "#0 ", "Segmentation"})
    EXPECT_EQ(r.err.find(bad), std::string::npos) << bad << r.diag();
}

TEST(RunBadInput, UnknownRegionSuggestsClosestNames) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "thread_wrk", "--", fixture("run_threads"), "1"});
  expect_one_line_error(r);
  EXPECT_NE(r.err.find("thread_wrk"), std::string::npos) << r.diag();
  EXPECT_NE(r.err.find("thread_work"), std::string::npos) << "closest name not suggested" << r.diag();
  EXPECT_EQ(r.out.find("done"), std::string::npos) << "the program should not have run to the end" << r.diag();
}

TEST(RunBadInput, UnknownRegionShortForm) {
  Sandbox sb;
  auto r = sb.roofprof({"--region", "dgem_", "--", fixture("run_blas_app")});
  expect_one_line_error(r);
  EXPECT_NE(r.err.find("dgemm_"), std::string::npos) << "closest name not suggested" << r.diag();
}

TEST(RunBadInput, NonexistentProgram) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--region", "main", "--", "./does-not-exist"});
  expect_one_line_error(r);
  EXPECT_NE(r.err.find("does-not-exist"), std::string::npos) << r.diag();
}

TEST(RunBadInput, ProgramThatCannotRunInEveryMode) {
  // Breakpoints only, the combined mode (the default) and the agent alone check the program
  // the same way (common/program.hpp runnable_program).
  for (const char* mode : {"--no-preload", "--preload", "--no-ptrace"}) {
    Sandbox sb;
    auto missing = sb.roofprof({"run", mode, "--backend", "time", "--region", "main", "--", "./does-not-exist"});
    expect_one_line_error(missing);
    EXPECT_NE(missing.err.find("'./does-not-exist': no such file"), std::string::npos) << mode << missing.diag();
    auto directory = sb.roofprof({"run", mode, "--backend", "time", "--region", "main", "--", "/tmp"});
    expect_one_line_error(directory);
    EXPECT_NE(directory.err.find("'/tmp': not an executable file"), std::string::npos) << mode << directory.diag();
  }
}

// --scope and --cache-state: the word is checked against runplan's names (runplan/option_values.hpp)
// before the program starts.
TEST(RunBadInput, UnknownScopeOrCacheStateNamesTheChoices) {
  Sandbox sb;
  auto scope = sb.roofprof({"run", "--scope", "threads", "--region", "thread_work", "--", fixture("run_threads"), "1"});
  expect_one_line_error(scope);
  EXPECT_EQ(scope.err, "roofprof: --scope: threads not in {process,thread} (see roofprof --help)\n") << scope.diag();
  auto state = sb.roofprof({"run", "--cache-state", "hot", "--region", "thread_work", "--", fixture("run_threads"), "1"});
  expect_one_line_error(state);
  EXPECT_EQ(state.err, "roofprof: --cache-state: hot not in {warm,cold} (see roofprof --help)\n") << state.diag();
  EXPECT_EQ(state.out.find("done"), std::string::npos) << "the program should not have run" << state.diag();
}

// --backend: the word is checked against runplan's names (runplan/option_values.hpp) before the
// program starts; no backend is chosen for a word that names none.
TEST(RunBadInput, UnknownBackendNamesTheChoices) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "papi", "--region", "thread_work", "--", fixture("run_threads"), "1"});
  expect_one_line_error(r);
  EXPECT_EQ(r.err, "roofprof: --backend: papi not in {auto,perf,native,emul,time} (see roofprof --help)\n")
      << r.diag();
  EXPECT_EQ(r.out.find("done"), std::string::npos) << "the program should not have run" << r.diag();
  EXPECT_FALSE(fs::exists(sb.path("roofprof.json"))) << r.diag();
}

// survey's --backend, --sort and --unwind: each word checked against survey's names
// (survey/option_values.hpp) before the program is sampled; --sort work without the emulated run.
TEST(SurveyBadInput, UnknownBackendSortOrUnwindNamesTheChoices) {
  Sandbox sb;
  const std::string program = fixture("run_three_kernels");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases{
      {{"--backend", "perf"}, "roofprof: --backend: perf not in {auto,emul} (see roofprof --help)\n"},
      {{"--sort", "size"}, "roofprof: --sort: size not in {time,work} (see roofprof --help)\n"},
      {{"--unwind", "lbr"}, "roofprof: --unwind: lbr not in {cfi,fp} (see roofprof --help)\n"},
      {{"--sort", "work"}, "roofprof: --sort work needs exact W: add --backend emul\n"},
  };
  for (const auto& [options, line] : cases) {
    std::vector<std::string> args{"survey"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", program});
    auto r = sb.roofprof(args);
    expect_one_line_error(r);
    EXPECT_EQ(r.err, line) << r.diag();
    EXPECT_FALSE(fs::exists(sb.path("roofprof-survey.json"))) << options[0] << r.diag();
  }
}

TEST(RunBadInput, MalformedSpan) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--span", "loop=span.c:10", "--", fixture("run_span")});
  expect_one_line_error(r);
}

TEST(RunBadInput, SpanWithoutName) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--span", "span.c:10..span.c:12", "--", fixture("run_span")});
  expect_one_line_error(r);
}

}  // namespace
}  // namespace it
