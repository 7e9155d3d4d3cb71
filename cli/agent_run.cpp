// roofprof run --no-ptrace: the program as a plain child with LD_PRELOAD=libroofprof-preload.so,
// its record files drained while it runs (preload::Collector), no ptrace at all.
#include "cli/agent_run.hpp"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <thread>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/program.hpp"
#include "counters/software_events.hpp"
#include "preload/collector.hpp"
#include "symbolizer/elf_file.hpp"

extern char** environ;

namespace roofprof::cli {

namespace {

namespace fs = std::filesystem;

// The agent next to this roofprof: <bin>/../lib/roofprof/libroofprof-preload.so.
std::string agent_library() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  fs::path lib = self.parent_path().parent_path() / "lib" / "roofprof" / "libroofprof-preload.so";
  if (ec || !fs::exists(lib)) throw UserError(fmt::format("the in-process agent is missing ({}): rebuild roofprof", lib.string()));
  return lib.string();
}

// What the agent cannot do, said before the program starts.
std::string check_and_resolve(const tracer::SessionOptions& so, const probes::Planner& planner) {
  if (so.attach_pid) throw UserError("--no-ptrace cannot attach to a running process (--pid needs ptrace)");
  for (const auto& s : planner.specs())
    if (s.kind == regions::RegionKind::Span)
      throw UserError(fmt::format("--span {} needs breakpoints: the in-process agent only hooks functions called "
                                  "through the dynamic linker; run without --no-ptrace", s.text));
  const std::string& prog = so.argv.at(0);
  std::string path = find_in_path(prog);
  struct stat st {};
  if (path.empty() || stat(path.c_str(), &st) != 0)
    throw UserError(fmt::format("cannot run '{}': no such file (check the path or PATH)", prog));
  if (S_ISDIR(st.st_mode) || access(path.c_str(), X_OK) != 0)
    throw UserError(fmt::format("cannot run '{}': not an executable file", prog));
  char head[2] = {0, 0};
  std::ifstream(path, std::ios::binary).read(head, 2);
  if (head[0] == '#' && head[1] == '!') return path;  // a script: its interpreter loads the agent
  if (!symbolizer::ElfFile::open(path)->has_interp())
    throw UserError(fmt::format("'{}' is statically linked: the in-process agent cannot be loaded into it "
                                "(LD_PRELOAD needs the dynamic linker); run without --no-ptrace", prog));
  return path;
}

std::string events_setting(const counters::Backend& backend) {
  std::string out;
  for (const auto& e : backend.events()) {
    const counters::SoftwareEvent* found = nullptr;
    for (const auto& s : counters::software_events())
      if (e.name == s.name) found = &s;
    if (!found)
      throw UserError(fmt::format("--no-ptrace counts software events only; '{}' is not one", e.name));
    out += fmt::format("{}{}:{}", out.empty() ? "" : ",", 1 /* PERF_TYPE_SOFTWARE */, found->config);
  }
  if (backend.events().size() > RP_MAX_EVENTS)
    throw UserError(fmt::format("--no-ptrace counts at most {} events", RP_MAX_EVENTS));
  return out;
}

std::string regions_setting(const probes::Planner& planner) {
  std::string out;
  const auto& specs = planner.specs();
  for (size_t i = 0; i < specs.size(); ++i) out += fmt::format("{}:{}\n", i, specs[i].start.symbol);
  return out;
}

// A directory for the record files, removed afterwards.
class RecordDir {
 public:
  RecordDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/roofprof-agent-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw UserError(advice_for_errno(errno, "creating a directory for the agent's records"));
    path_ = tmpl;
  }
  ~RecordDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The environment of the program: ours, with the agent preloaded and configured. The
// ROOFPROF_AGENT_PID entry has room for the child to write its own pid after fork.
struct ChildEnv {
  std::vector<std::string> entries;
  std::vector<char*> pointers;
  size_t pid_entry = 0;
};

ChildEnv child_environment(const std::map<std::string, std::string>& set) {
  ChildEnv e;
  for (char** p = environ; *p; ++p) {
    std::string kv = *p;
    std::string key = kv.substr(0, kv.find('='));
    if (set.count(key) || key == "LD_PRELOAD" || key == "ROOFPROF_AGENT_PID") continue;
    e.entries.push_back(kv);
  }
  for (const auto& [k, v] : set) e.entries.push_back(k + "=" + v);
  e.pid_entry = e.entries.size();
  e.entries.push_back("ROOFPROF_AGENT_PID=" + std::string(20, ' '));
  for (auto& s : e.entries) e.pointers.push_back(s.data());
  e.pointers.push_back(nullptr);
  return e;
}

// SIGINT/SIGTERM sent to roofprof by another process are passed on to the program; those the
// terminal sends reach the whole foreground group, the program included, so they are not
// sent twice. Signal handlers need process-global state: the program's pid, nothing else.
std::atomic<pid_t>& forward_target() {
  static std::atomic<pid_t> pid{0};
  return pid;
}

void forward_signal(int sig, siginfo_t* info, void*) {
  pid_t child = forward_target().load();
  if (child > 0 && info && info->si_code != SI_KERNEL) ::kill(child, sig);
}

class SignalForwarding {
 public:
  explicit SignalForwarding(pid_t child) {
    forward_target().store(child);
    struct sigaction sa {};
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int_);
    sigaction(SIGTERM, &sa, &old_term_);
  }
  ~SignalForwarding() {
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    forward_target().store(0);
  }

 private:
  struct sigaction old_int_ {}, old_term_ {};
};

void write_pid(char* entry, pid_t pid) {
  char digits[16];
  int n = 0;
  for (unsigned v = unsigned(pid); v || n == 0; v /= 10) digits[n++] = char('0' + v % 10);
  char* out = entry + std::strlen("ROOFPROF_AGENT_PID=");
  while (n) *out++ = digits[--n];
  *out = '\0';
}

}  // namespace

tracer::SessionOutcome run_with_agent(const tracer::SessionOptions& so, counters::Backend& backend,
                                      probes::Planner& planner, const regions::Tracker::Sink& sink) {
  std::string path = check_and_resolve(so, planner);
  RecordDir dir;
  std::map<std::string, std::string> settings = {
      {"ROOFPROF_AGENT_DIR", dir.path()},
      {"ROOFPROF_AGENT_REGIONS", regions_setting(planner)},
      {"ROOFPROF_AGENT_SCOPE", so.scope == regions::Scope::Thread ? "thread" : "process"},
      {"ROOFPROF_AGENT_EVENTS", events_setting(backend)},
      {"ROOFPROF_AGENT_FOLLOW_FORK", so.follow_fork ? "1" : "0"},
      {"ROOFPROF_AGENT_CONSUMER", std::to_string(::getpid())},
  };
  std::string preload = agent_library();
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  settings["LD_PRELOAD"] = preload;
  if (const char* ring = std::getenv("ROOFPROF_AGENT_RING")) settings["ROOFPROF_AGENT_RING"] = ring;
  ChildEnv env = child_environment(settings);
  std::vector<char*> argv;
  for (const auto& a : so.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  preload::Collector collector(dir.path(), planner, so.scope, backend.events().size(), sink);
  if (so.on_ready) so.on_ready();  // everything the agent cannot do has been said
  tracer::SessionOutcome out;
  int64_t start = monotonic_ns();
  pid_t child = ::fork();
  if (child < 0) throw UserError(advice_for_errno(errno, "fork"));
  if (child == 0) {
    write_pid(env.pointers[env.pid_entry], ::getpid());
    ::execve(path.c_str(), argv.data(), env.pointers.data());
    std::fprintf(stderr, "roofprof: cannot run '%s': %s\n", so.argv[0].c_str(), std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  int64_t end = 0;
  {
    SignalForwarding forwarding(child);
    for (bool root_done = false;;) {
      size_t replayed = collector.poll();
      if (!root_done) {
        pid_t r = ::waitpid(child, &status, WNOHANG);
        if (r == child) {
          root_done = true;
          end = monotonic_ns();
          collector.root_ended(child, end, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        }
      }
      if (root_done && !(so.follow_fork && collector.others_running())) break;
      if (replayed == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  collector.finish(monotonic_ns());
  out.wall_time_s = double(end - start) * 1e-9;
  if (WIFEXITED(status)) out.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.term_signal = WTERMSIG(status);
  out.complete = collector.complete();
  out.warnings = collector.warnings();
  if (!collector.has_file_of(child) && !(WIFEXITED(status) && WEXITSTATUS(status) == 127))
    out.warnings.push_back("the in-process agent did not start in the program (LD_PRELOAD ignored, e.g. a setuid "
                           "program, or a script that runs it as a child without --follow-fork): nothing was measured");
  return out;
}

}  // namespace roofprof::cli
