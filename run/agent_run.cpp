// roofprof run --no-ptrace: the program as a plain child with LD_PRELOAD=libroofprof-preload.so,
// its record files drained while it runs (preload::Collector), no ptrace at all.
#include "run/agent_run.hpp"

#include "run/agent_env.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <time.h>

#include "common/clock.hpp"
#include "common/error.hpp"
#include "common/program.hpp"
#include "preload/collector.hpp"
#include "supervisor/child.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::run {

namespace {

namespace fs = std::filesystem;

// What the agent cannot do, said before the program starts.
std::string check_and_resolve(const supervisor::RunOptions& so, const probes::Planner& planner) {
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

}  // namespace

supervisor::RunOutcome run_with_agent(const supervisor::RunOptions& so, counters::Backend& backend,
                                      probes::Planner& planner, regions::Tracker& tracker) {
  std::string path = check_and_resolve(so, planner);
  RecordDir dir;
  ChildEnv env(agent_settings(so, backend, planner, dir.path()));
  const preload::AgentEvents events = agent_events(backend);
  preload::Collector collector(dir.path(), planner, events.n_events, tracker, false, events.timed);
  collector.skip_if_frequent(so.agent_skip_if_frequent, so.agent_skip_factor);
  collector.key_calls(*so.observer);
  so.observer->ready();  // everything the agent cannot do has been said
  supervisor::RunOutcome out;
  int64_t start = monotonic_ns();
  supervisor::Launch launch;
  launch.path = path;
  launch.argv = so.argv;
  launch.env = [&env] { return env.for_child(::getpid()); };
  supervisor::InterruptPolicy interrupts(false);
  supervisor::Child child(supervisor::start(launch), interrupts);
  int64_t end = 0;
  // The reader sleeps on the agents' doorbell (preload/doorbell.hpp); the program's end (SIGCHLD)
  // and roofprof's own signals cut the sleep short.
  auto child_wakes = collector.wake_on_child();
  for (bool root_done = false;;) {
    collector.wait_and_drain([&] {
      // (a request from roofprof's signals is acted on here, after the signal cut the sleep short)
      if (root_done || !child.wait(std::chrono::nanoseconds(0))) return true;
      root_done = true;
      end = monotonic_ns();
      int st = child.status();
      collector.root_ended(child.pid(), end, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
      return false;
    });
    // --follow-fork: the program's children are not ours to wait for; an interrupt stops here.
    if (root_done && !(so.follow_fork && !interrupts.interrupted() && collector.others_running())) break;
  }
  int status = child.status();
  collector.finish(monotonic_ns());
  out.agent_boundary = collector.boundary_cost();
  out.agent_reader = collector.reader_cost();
  out.wall_time_s = double(end - start) * 1e-9;
  out.ending = supervisor::Ending::of_wait_status(status);
  out.complete = collector.complete() && !interrupts.interrupted();
  out.warnings = collector.warnings();
  if (so.agent_evict_bytes) out.cache_evictions = collector.evictions();  // --cache-state cold
  if (!collector.has_file_of(child.pid()) && !(WIFEXITED(status) && supervisor::is_exec_failure_status(WEXITSTATUS(status))))
    out.warnings.push_back("the in-process agent did not start in the program (LD_PRELOAD ignored, e.g. a setuid "
                           "program, or a script that runs it as a child without --follow-fork): nothing was measured");
  return out;
}

}  // namespace roofprof::run
