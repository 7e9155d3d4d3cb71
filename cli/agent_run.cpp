// roofprof run --no-ptrace: the program as a plain child with LD_PRELOAD=libroofprof-preload.so,
// its record files drained while it runs (preload::Collector), no ptrace at all.
#include "cli/agent_run.hpp"

#include "cli/agent_env.hpp"

#include <signal.h>
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
#include "preload/collector.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::cli {

namespace {

namespace fs = std::filesystem;

// What the agent cannot do, said before the program starts.
std::string check_and_resolve(const tracer::SessionOptions& so, const probes::Planner& planner) {
  if (so.attach_pid) throw UserError("--no-ptrace cannot attach to a running process (--pid needs ptrace)");
  for (const auto& s : planner.specs())
    if (s.kind == regions::RegionKind::Span)
      throw UserError(fmt::format("--span {} needs breakpoints: the in-process agent only hooks functions called "
                                  "through the dynamic linker; run without --no-ptrace", s.text));
  const std::string& prog = so.argv.at(0);
  std::string path = runnable_program(prog);
  char head[2] = {0, 0};
  std::ifstream(path, std::ios::binary).read(head, 2);
  if (head[0] == '#' && head[1] == '!') return path;  // a script: its interpreter loads the agent
  if (!symbolizer::ElfFile::open(path)->has_interp())
    throw UserError(fmt::format("'{}' is statically linked: the in-process agent cannot be loaded into it "
                                "(LD_PRELOAD needs the dynamic linker); run without --no-ptrace", prog));
  return path;
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

}  // namespace

tracer::SessionOutcome run_with_agent(const tracer::SessionOptions& so, counters::Backend& backend,
                                      probes::Planner& planner, const regions::Tracker::Sink& sink) {
  std::string path = check_and_resolve(so, planner);
  RecordDir dir;
  ChildEnv env(agent_settings(so, backend, planner, dir.path()));
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
    ::execve(path.c_str(), argv.data(), env.for_child(::getpid()));
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
  if (so.agent_evict_bytes) out.cache_evictions = collector.evictions();  // --cache-state cold
  if (!collector.has_file_of(child) && !(WIFEXITED(status) && WEXITSTATUS(status) == 127))
    out.warnings.push_back("the in-process agent did not start in the program (LD_PRELOAD ignored, e.g. a setuid "
                           "program, or a script that runs it as a child without --follow-fork): nothing was measured");
  return out;
}

}  // namespace roofprof::cli
