// Results never written through a symlink and replaced with their mode, concurrent runs with the
// default name each keeping their result, pathological input answered at once, and the command
// line's numbers, pids and programs checked.
#include <sys/stat.h>

#include <fstream>
#include <set>

#include "harness.hpp"

namespace it {
namespace {

void expect_one_line_error(const RunResult& r, const std::string& says, int status = 2) {
  EXPECT_EQ(r.exit_code(), status) << r.diag();
  EXPECT_EQ(lines(r.err).size(), 1u) << r.diag();
  EXPECT_NE(r.err.find(says), std::string::npos) << says << r.diag();
  EXPECT_LT(r.err.size(), 2000u) << "an error line carries no megabyte name";
  for (const char* bad : {"terminate called", "what()", "Aborted", "Segmentation"})
    EXPECT_EQ(r.err.find(bad), std::string::npos) << bad << r.diag();
}

// --- -o through a symlink --------------------------------------------------------------------

// `ln -s /etc/passwd l.json; roofprof run -o l.json` turned /etc/passwd into JSON. As nobody,
// with a link (in the directory it owns) to a file it does not own, and a link planted under
// the default name: refused before the program runs, the file untouched.
TEST(OutputLinks, LinkToAFileOfAnotherUserIsRefusedAndTheFileKept) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to make a file nobody does not own";
  Sandbox sb;
  RunOptions nobody;
  nobody.unprivileged = true;
  sb.spawn_options("chown", nobody);  // the working directory becomes nobody's
  const fs::path victim = sb.work().parent_path() / "victim.txt";
  write_text(victim, "root's file\n");
  ::chmod(victim.c_str(), 0666);  // writable by nobody: only the rule keeps roofprof from it
  fs::create_symlink(victim, sb.path("l.json"));
  fs::create_symlink(victim, sb.path("roofprof.json"));
  for (const std::vector<std::string>& out : {std::vector<std::string>{"-o", "l.json"}, std::vector<std::string>{}}) {
    std::vector<std::string> args{"run", "--backend", "time", "-r", "pre_work"};
    args.insert(args.end(), out.begin(), out.end());
    args.insert(args.end(), {"--", fixture("pre_app"), "calls", "1"});
    auto r = sb.roofprof(args, nobody);
    expect_one_line_error(r, "is a symbolic link");
    EXPECT_EQ(r.out, "") << "the program must not run" << r.diag();
    EXPECT_EQ(read_text(victim), "root's file\n");
  }
  struct stat st {};
  ASSERT_EQ(::stat(victim.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 0u);
  EXPECT_EQ(st.st_mode & 07777, 0666u);
}

TEST(OutputLinks, ReplacedResultKeepsMode0600) {
  Sandbox sb;
  const std::vector<std::string> args{"run", "-q", "--backend", "time", "-r", "pre_work", "--",
                                      fixture("pre_app"), "calls", "2"};
  ASSERT_EQ(sb.roofprof(args).exit_code(), 0);
  ASSERT_EQ(::chmod(sb.path("roofprof.json").c_str(), 0600), 0);
  auto r = sb.roofprof(args);
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  struct stat st {};
  ASSERT_EQ(::stat(sb.path("roofprof.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(calls(region(load_result(r), "pre_work")), 2);
  EXPECT_TRUE(fs::exists(sb.path("roofprof.json.old")));
}

// --- Concurrent runs --------------------------------------------------------------------------

struct Beat {
  long n = -1;
  int pid = 0;
};

Beat read_beat(const fs::path& p) {
  std::ifstream in(p);
  Beat b;
  in >> b.n >> b.pid;
  return in ? b : Beat{};
}

// Four runs at once in one directory with the default name lost two results, each saying
// "results in roofprof.json". The four programs beat until all four are running (so the four
// runs surely overlap), then each roofprof is interrupted and writes what it measured.
TEST(ConcurrentRuns, FourRunsWithTheDefaultNameKeepFourResults) {
  Sandbox sb;
  std::vector<std::unique_ptr<Child>> runs;
  for (int i = 0; i < 4; ++i)
    runs.push_back(sb.start({roofprof_bin(), "run", "--backend", "time", "--region", "tick", "--",
                             fixture("run_heartbeat"), sb.path("beat" + std::to_string(i)).string()},
                            "run" + std::to_string(i)));
  for (int i = 0; i < 4; ++i)
    ASSERT_TRUE(eventually([&] { return read_beat(sb.path("beat" + std::to_string(i))).n > 0; }, 20s))
        << "run " << i << " does not beat\nstderr:\n" << sb.captured("run" + std::to_string(i), "stderr");
  std::set<std::string> said;
  for (int i = 0; i < 4; ++i) {
    const int app = read_beat(sb.path("beat" + std::to_string(i))).pid;
    runs[i]->signal(SIGINT);
    Status st = runs[i]->finish(20s);
    ::kill(app, SIGKILL);
    const std::string err = sb.captured("run" + std::to_string(i), "stderr");
    EXPECT_FALSE(st.timed_out) << err;
    const size_t at = err.rfind("roofprof: results in ");
    ASSERT_NE(at, std::string::npos) << err;
    said.insert(err.substr(at + 21, err.find('\n', at) - at - 21));
  }
  EXPECT_EQ(said, (std::set<std::string>{"roofprof.json", "roofprof.1.json", "roofprof.2.json", "roofprof.3.json"}));
  for (const auto& name : said) {
    json doc = json::parse(read_text(sb.path(name)));
    EXPECT_GT(calls(region(doc, "tick")), 0) << name;
  }
  EXPECT_FALSE(fs::exists(sb.path("roofprof.json.old"))) << "no run replaced another's result";
  for (const auto& e : fs::directory_iterator(sb.work()))
    EXPECT_EQ(e.path().extension(), e.path().filename().string().rfind("beat", 0) == 0 ? "" : ".json")
        << "left behind: " << e.path();
}

// --- Pathological input -----------------------------------------------------------------------

// A 20 KB name took 82 s before "unknown region" (100 KB: 646 s). A single argument stops at
// 128 KiB (the kernel's limit), so the 1 MB name comes from a survey file (--regions-from).
TEST(PathologicalInput, LongRegionNamesAreAnsweredAtOnce) {
  Sandbox sb;
  auto r = sb.roofprof({"run", "--backend", "time", "-r", std::string(100000, 'a'), "--", fixture("pre_app")});
  expect_one_line_error(r, "is longer than 4096 bytes");
  EXPECT_LT(r.status.elapsed_s, 1.0) << r.diag();

  auto s = sb.roofprof({"survey", "-q", "-n", "1", "-o", "s.json", "--", fixture("run_three_kernels"), "20"});
  ASSERT_EQ(s.exit_code(), 0) << s.diag();
  json doc = json::parse(read_text(sb.path("s.json")));
  ASSERT_FALSE(doc["survey"]["functions"].empty()) << doc.dump(1);
  doc["survey"]["functions"][0]["symbol"] = std::string(1 << 20, 'k');  // what --regions-from takes
  write_text(sb.path("s.json"), doc.dump());
  auto m = sb.roofprof({"run", "--backend", "time", "--regions-from", "s.json", "--", fixture("run_three_kernels")});
  expect_one_line_error(m, "(1048576 bytes)' is longer than 4096 bytes");
  EXPECT_LT(m.status.elapsed_s, 1.0) << m.diag();
}

// 10,000 -r options took 92-113 s. Distinct ones are more than a run takes (one line, at once);
// the same one 10,000 times is one region.
TEST(PathologicalInput, TenThousandRegionsAnsweredInSeconds) {
  Sandbox sb;
  std::vector<std::string> distinct{"run", "--backend", "time"}, same = distinct;
  for (int i = 0; i < 10000; ++i) {
    distinct.insert(distinct.end(), {"-r", "fn" + std::to_string(i)});
    same.insert(same.end(), {"-r", "pre_work"});
  }
  for (auto* args : {&distinct, &same}) args->insert(args->end(), {"--", fixture("pre_app"), "calls", "3"});
  auto r = sb.roofprof(distinct);
  expect_one_line_error(r, "10000 regions given, more than the 1000");
  EXPECT_LT(r.status.elapsed_s, 10) << r.diag();
  auto one = sb.roofprof(same);
  ASSERT_EQ(one.exit_code(), 0) << one.diag();
  EXPECT_LT(one.status.elapsed_s, 10) << one.diag();
  json doc = load_result(one);
  ASSERT_EQ(doc["regions"].size(), 1u);
  EXPECT_EQ(calls(region(doc, "pre_work")), 3);
}

// `--ceilings` on a 100,000-deep JSON crashed (SIGSEGV). Every reader says so in one line.
TEST(PathologicalInput, DeepJsonInEveryReader) {
  Sandbox sb;
  write_text(sb.path("deep.json"), std::string(100000, '[') + std::string(100000, ']'));
  ASSERT_EQ(sb.roofprof({"run", "-q", "--backend", "time", "-r", "pre_work", "-o", "r.json", "--",
                         fixture("pre_app"), "calls", "1"})
                .exit_code(),
            0);
  const std::vector<std::vector<std::string>> readers = {
      {"report", "deep.json"},
      {"report", "r.json", "--ceilings", "deep.json"},
      {"annotate", "deep.json", "pre_work"},
      {"run", "--backend", "time", "--regions-from", "deep.json", "--", fixture("pre_app")},
  };
  for (const auto& args : readers) {
    std::string command;
    for (const auto& a : args) command += (command.empty() ? "" : " ") + a;
    SCOPED_TRACE(command);
    expect_one_line_error(sb.roofprof(args), "JSON nested deeper than 128 levels");
  }
}

// --- The command line -------------------------------------------------------------------------

TEST(CommandLine, NumbersPidsAndProgramsAreCheckedInWords) {
  Sandbox sb;
  const std::string app = fixture("pre_app");
  struct Case {
    std::vector<std::string> args;
    std::string says;
  } cases[] = {
      {{"run", "--max-probe-slowdown", "nan", "-r", "pre_work", "--", app}, "must be a finite number, at least 0, not 'nan'"},
      {{"run", "--max-probe-slowdown", "inf", "-r", "pre_work", "--", app}, "not 'inf'"},
      {{"run", "--repeat", "0", "-r", "pre_work", "--", app}, "--repeat: must be at least 1, not 0"},
      {{"run", "--pid", "0", "-r", "pre_work"}, "--pid 0: not a process id"},
      {{"run", "--pid", "-7", "-r", "pre_work"}, "--pid -7: not a process id"},
      {{"survey", "--top", "0", "--", app}, "--top: must be at least 1, not 0"},
      {{"survey", "--min-percent", "nan", "--", app}, "--min-percent: must be a finite number"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[1] + " " + c.args[2]);
    auto r = sb.roofprof(c.args);
    expect_one_line_error(r, c.says);
    EXPECT_EQ(r.out, "") << r.diag();
  }
}

// A 32-bit program got 127 where a shell gives 126: exec format error, one line, 126.
TEST(CommandLine, ProgramOfAnotherMachineExits126LikeAShell) {
  Sandbox sb;
  // ELF headers: 32-bit x86 (EM_386) and 64-bit AArch64 (EM_AARCH64 183), little-endian.
  std::string x86_32("\x7f" "ELF\x01\x01\x01", 7), arm64("\x7f" "ELF\x02\x01\x01", 7);
  x86_32 += std::string(9, '\0') + std::string("\x02\x00\x03\x00", 4) + std::string(44, '\0');
  arm64 += std::string(9, '\0') + std::string("\x02\x00\xb7\x00", 4) + std::string(48, '\0');
  for (const auto& [name, bytes, says] : {std::tuple{"old32", x86_32, "a 32-bit x86 program"},
                                          std::tuple{"arm64", arm64, "an ELF file for another machine"}}) {
    write_text(sb.path(name), bytes);
    ::chmod(sb.path(name).c_str(), 0755);
    for (const char* mode : {"--preload", "--no-ptrace"}) {
      SCOPED_TRACE(std::string(name) + " " + mode);
      auto r = sb.roofprof({"run", mode, "--backend", "time", "-r", "main", "--", std::string("./") + name});
      expect_one_line_error(r, std::string("cannot run './") + name + "': exec format error (" + says, 126);
      EXPECT_FALSE(fs::exists(sb.path("roofprof.json"))) << "no result of a program that never ran";
    }
    auto survey = sb.roofprof({"survey", "--", std::string("./") + name});
    expect_one_line_error(survey, "exec format error", 126);
  }
}

// annotate printed a 100 MB module name; error lines shorten every word over 1000 bytes.
TEST(CommandLine, MegabyteModuleNameIsShortenedInTheError) {
  Sandbox sb;
  auto run = sb.roofprof({"run", "-q", "--backend", "emul", "--no-cache-sim", "--annotate", "-r", "daxpy", "--",
                          fixture("emul_kernels_O2"), "counts"});
  ASSERT_EQ(run.exit_code(), 0) << run.diag();
  json doc = load_result(run);
  for (auto& reg : doc["regions"])
    for (auto& a : reg["annotation"]) a["module"] = "/" + std::string(1 << 20, 'm');
  write_text(sb.path("long.json"), doc.dump());
  auto r = sb.roofprof({"annotate", "long.json", "daxpy"});
  expect_one_line_error(r, "mmm... (104857");  // the word's size, with what ends it
}

}  // namespace
}  // namespace it
