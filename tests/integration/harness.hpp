#pragma once
// Harness of the `roofprof run` integration tests: runs roofprof (or a fixture) as a child
// in a fresh temporary directory, captures stdout/stderr and the exit status, and kills the
// child's whole process group when it outlives its timeout (a hang becomes a test failure).
// Result files are parsed with nlohmann::json.
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace it {

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace std::chrono_literals;

// The roofprof under test: the one this build made, or $ROOFPROF_IT_BIN when set.
inline std::string roofprof_bin() {
  const char* b = std::getenv("ROOFPROF_IT_BIN");
  return b && *b ? b : ROOFPROF_BIN;
}
inline std::string fixture(const std::string& name) { return std::string(FIXTURES_DIR) + "/" + name; }
inline std::string source_path(const std::string& rel) { return std::string(SOURCE_DIR) + "/" + rel; }

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << s;
}

// A fresh directory under $TMPDIR (or /tmp). Removed on destruction unless the current test
// has failed, so that its files can be inspected (the path is printed).
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/roofprof-it-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
    path_ = buf.data();
  }
  ~TempDir() {
    if (::testing::Test::HasFailure()) {
      std::fprintf(stderr, "[harness] kept %s for inspection\n", path_.c_str());
      return;
    }
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

struct SpawnOptions {
  fs::path cwd;                                   // working directory of the child
  fs::path stdout_file, stderr_file;              // captured output
  std::optional<std::string> stdin_text;          // default: /dev/null
  std::map<std::string, std::string> env;         // added to (or overriding) our environment
  bool unprivileged = false;                      // run as the user nobody (when we are root)
};

// The unprivileged user the tests run roofprof as (most HPC users are not root).
inline constexpr uid_t kNobody = 65534;
inline constexpr gid_t kNogroup = 65534;

// Outcome of a child process.
struct Status {
  bool exited = false;     // exit() / return from main
  int exit_code = -1;      // when exited
  int term_signal = 0;     // when killed by a signal
  bool timed_out = false;  // we killed it because it outlived its timeout
  double elapsed_s = 0;
};

inline std::string describe(const Status& s) {
  std::ostringstream o;
  if (s.timed_out) o << "TIMED OUT (killed) after " << s.elapsed_s << " s";
  else if (s.exited) o << "exit " << s.exit_code;
  else if (s.term_signal) o << "killed by signal " << s.term_signal;
  else o << "still running";
  return o.str();
}

// A child process in its own process group; the group is killed (SIGKILL) when the Child is
// destroyed while still running, so a stuck tracer and its tracee never outlive a test.
class Child {
 public:
  Child() = default;
  Child(const std::vector<std::string>& argv, const SpawnOptions& o) { spawn(argv, o); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      ::killpg(pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      int st;
      ::waitpid(pid_, &st, 0);
    }
  }

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0 && !reaped_; }

  void spawn(const std::vector<std::string>& argv, const SpawnOptions& o) {
    std::string in_path = "/dev/null";
    if (o.stdin_text) {
      in_path = (o.cwd.parent_path() / ("stdin." + std::to_string(::getpid()) + "." +
                                        std::to_string(counter()++))).string();
      write_text(in_path, *o.stdin_text);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    start_ = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::setpgid(0, 0);
      // Default signal dispositions and mask, whatever the test runner set.
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGUSR1, SIGCHLD, SIGHUP, SIGQUIT, SIGUSR2, SIGALRM})
        ::signal(s, SIG_DFL);
      if (!o.cwd.empty() && ::chdir(o.cwd.c_str()) != 0) _exit(126);
      int in = ::open(in_path.c_str(), O_RDONLY);
      int out = o.stdout_file.empty() ? ::open("/dev/null", O_WRONLY)
                                      : ::open(o.stdout_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = o.stderr_file.empty() ? ::open("/dev/null", O_WRONLY)
                                      : ::open(o.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in < 0 || out < 0 || err < 0) _exit(126);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      for (const auto& [k, v] : o.env) ::setenv(k.c_str(), v.c_str(), 1);
      if (o.unprivileged && ::geteuid() == 0) {
        if (::setgroups(0, nullptr) != 0 || ::setgid(kNogroup) != 0 || ::setuid(kNobody) != 0) _exit(125);
        ::setenv("HOME", "/nonexistent", 1);
      }
      ::execv(args[0], args.data());
      _exit(127);
    }
    ::setpgid(pid, pid);  // also from the parent: no race with a kill right after fork
    pid_ = pid;
    reaped_ = false;
    status_ = Status{};
  }

  // Waits until the child ends or `timeout` passes. Returns true when it ended.
  bool wait_for(std::chrono::milliseconds timeout) {
    if (reaped_) return true;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      int st = 0;
      pid_t r = ::waitpid(pid_, &st, WNOHANG);
      if (r == pid_) {
        reaped_ = true;
        status_.elapsed_s = seconds_since_start();
        if (WIFEXITED(st)) {
          status_.exited = true;
          status_.exit_code = WEXITSTATUS(st);
        } else if (WIFSIGNALED(st)) {
          status_.term_signal = WTERMSIG(st);
        }
        return true;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(2ms);
    }
  }

  // Waits up to `timeout`; then kills the whole process group and reports timed_out.
  Status finish(std::chrono::milliseconds timeout) {
    if (!wait_for(timeout)) {
      ::killpg(pid_, SIGKILL);
      ::kill(pid_, SIGKILL);
      wait_for(10s);
      status_.timed_out = true;
      status_.elapsed_s = seconds_since_start();
    }
    return status_;
  }

  void signal(int sig) const {
    if (running()) ::kill(pid_, sig);
  }
  const Status& status() const { return status_; }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  double seconds_since_start() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  pid_t pid_ = -1;
  bool reaped_ = true;
  Status status_;
  std::chrono::steady_clock::time_point start_;
};

// One run of roofprof: status, captured output, and the directory it ran in.
struct RunResult {
  Status status;
  std::string out, err;
  fs::path dir;                       // the working directory of the run
  std::vector<std::string> argv;

  int exit_code() const { return status.exited ? status.exit_code : -1; }
  fs::path file(const std::string& name) const { return dir / name; }
  // For assertion messages: command, status and stderr.
  std::string diag() const {
    std::ostringstream o;
    o << "\n  command:";
    for (const auto& a : argv) o << ' ' << a;
    o << "\n  status: " << describe(status) << "\n  cwd: " << dir.string() << "\n  stderr:\n" << err;
    if (!out.empty()) o << "\n  stdout:\n" << out;
    return o.str();
  }
};

struct RunOptions {
  std::map<std::string, std::string> env = {};
  std::optional<std::string> stdin_text = {};
  std::chrono::milliseconds timeout = 30s;
  bool unprivileged = false;  // as the user nobody, in a working directory it owns
};

// A temporary directory with one working directory; every run of a test happens in it.
class Sandbox {
 public:
  Sandbox() { fs::create_directories(work()); }
  fs::path work() const { return tmp_ / "work"; }
  fs::path path(const std::string& name) const { return work() / name; }

  SpawnOptions spawn_options(const std::string& tag, const RunOptions& ro) {
    SpawnOptions so;
    so.cwd = work();
    so.stdout_file = tmp_ / (tag + ".stdout");
    so.stderr_file = tmp_ / (tag + ".stderr");
    so.env = ro.env;
    so.stdin_text = ro.stdin_text;
    so.unprivileged = ro.unprivileged;
    if (ro.unprivileged && ::geteuid() == 0) {
      // nobody reaches the working directory and owns it.
      ::chmod(tmp_.path().c_str(), 0755);
      if (::chown(work().c_str(), kNobody, kNogroup) != 0) ADD_FAILURE() << "cannot chown " << work();
    }
    return so;
  }

  // Runs `roofprof ARGS...` to completion (or until the timeout kills it).
  RunResult roofprof(const std::vector<std::string>& args, const RunOptions& ro = {}) {
    std::vector<std::string> argv{roofprof_bin()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run(argv, ro);
  }

  RunResult run(const std::vector<std::string>& argv, const RunOptions& ro = {}) {
    std::string tag = "run" + std::to_string(runs_++);
    SpawnOptions so = spawn_options(tag, ro);
    Child c(argv, so);
    RunResult r;
    r.status = c.finish(ro.timeout);
    r.out = read_text(so.stdout_file);
    r.err = read_text(so.stderr_file);
    r.dir = work();
    r.argv = argv;
    return r;
  }

  // A child that keeps running (for --pid tests); captured output goes to TAG.stdout/stderr.
  std::unique_ptr<Child> start(const std::vector<std::string>& argv, const std::string& tag,
                               const RunOptions& ro = {}) {
    return std::make_unique<Child>(argv, spawn_options(tag, ro));
  }
  std::string captured(const std::string& tag, const std::string& stream) const {
    return read_text(tmp_ / (tag + "." + stream));
  }

 private:
  TempDir tmp_;
  int runs_ = 0;
};

// The result file of a run (default name roofprof.json in its working directory). Fails the
// current test (and returns null) when it is missing or not JSON.
inline json load_result(const RunResult& r, const std::string& name = "roofprof.json") {
  fs::path p = r.file(name);
  if (!fs::exists(p)) {
    ADD_FAILURE() << "result file " << p << " was not written" << r.diag();
    return json();
  }
  try {
    return json::parse(read_text(p));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "result file " << p << " is not JSON: " << e.what() << r.diag();
    return json();
  }
}

// The result's warnings other than the in-process probe's overhead notes ("region 'f': about
// N % of its time is the in-process probe's own work ...") and its counters-only-where-cheap
// notes ("... read the clock alone ..."), which depend on how fast this machine is against the
// region (docs/preload.md, "What a boundary costs"), and the caution on a reported last cache
// level larger than a core can use, which depends on what this host's CPUID says
// (docs/emulation.md, "Where the geometry comes from").
inline json plain_warnings(const json& doc) {
  json out = json::array();
  if (!doc.is_object() || !doc.contains("warnings")) return out;
  for (const auto& w : doc["warnings"]) {
    const std::string text = w.is_string() ? w.get<std::string>() : std::string();
    if (text.find("of its time is the in-process probe's own work") == std::string::npos &&
        text.find("in-process boundaries read the clock alone") == std::string::npos &&
        text.rfind("bytes (Q) below L1 were not measured: the emulated pass for them runs only when asked", 0) != 0 &&
        !(text.rfind("the host reports a", 0) == 0 && text.find("may report its host's whole socket") != std::string::npos))
      out.push_back(w);
  }
  return out;
}

// The region named `name` in a result document; fails the test and returns null when absent.
inline json region(const json& doc, const std::string& name) {
  if (doc.is_object() && doc.contains("regions") && doc["regions"].is_array())
    for (const auto& r : doc["regions"])
      if (r.contains("name") && r["name"] == name) return r;
  ADD_FAILURE() << "no region named '" << name << "' in the result: "
                << (doc.is_null() ? std::string("(no result)") : doc.dump(1).substr(0, 4000));
  return json();
}

// Numeric member access that fails the test (instead of throwing) on a missing/wrong member.
inline double num(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) {
    ADD_FAILURE() << "member '" << key << "' missing or not a number in " << j.dump();
    return -1;
  }
  return j[key].get<double>();
}
inline int64_t calls(const json& region) { return int64_t(num(region, "calls")); }
inline int64_t threads(const json& region) { return int64_t(num(region, "threads")); }
inline double time_s(const json& region) { return num(region, "time_s"); }
// closed_by[reason]; a reason that never happened may be absent (= 0).
inline int64_t closed_by(const json& region, const std::string& reason) {
  if (!region.is_object() || !region.contains("closed_by") || !region["closed_by"].is_object()) {
    ADD_FAILURE() << "region has no closed_by object: " << region.dump();
    return -1;
  }
  const auto& c = region["closed_by"];
  if (!c.contains(reason)) return 0;
  return c[reason].get<int64_t>();
}
// counters[event]; fails the test when absent or null (not counted).
inline double counter(const json& region, const std::string& event) {
  if (!region.is_object() || !region.contains("counters") || !region["counters"].contains(event) ||
      !region["counters"][event].is_number()) {
    ADD_FAILURE() << "counter '" << event << "' missing or null in " << region.dump();
    return -1;
  }
  return region["counters"][event].get<double>();
}

// 1-based line of the first line in `file` (relative to the source tree) containing `marker`;
// fails the test and returns 0 when there is none.
inline int line_of(const std::string& file, const std::string& marker) {
  std::ifstream in(source_path(file));
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (line.find(marker) != std::string::npos) return n;
  ADD_FAILURE() << "marker '" << marker << "' not found in " << source_path(file);
  return 0;
}

// Non-empty lines of a text.
inline std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty()) out.push_back(l);
  return out;
}

// Polls `pred` every 10 ms until it holds or `timeout` passes.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

}  // namespace it
