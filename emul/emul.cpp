#include "emul/emul.hpp"

#include "emul/undecodable.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/layout.hpp"
#include "common/log.hpp"
#include "common/program.hpp"
#include "common/temp_dir.hpp"
#include "emul/events.hpp"
#include "emul/progress.hpp"
#include "preload/env_format.h"
#include "supervisor/child.hpp"

#ifndef ROOFPROF_EMUL_BUILD_TOOL_DIR
#define ROOFPROF_EMUL_BUILD_TOOL_DIR ""
#endif

namespace fs = std::filesystem;

namespace roofprof::emul {
namespace {

constexpr const char* kTool = "roofprof-amd64-linux";

bool executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// Follows the tool's event files as they grow and feeds complete lines to the parser.
class EventFiles {
 public:
  EventFiles(std::string dir, EventParser& parser) : dir_(std::move(dir)), parser_(parser) {}

  // Only the files of this pid are read (0: every pid's): forked children left out.
  void only_pid(int pid) { only_pid_ = pid; }

  void poll() {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
      int pid = 0, seq = 0;
      std::string name = entry.path().filename().string();
      if (std::sscanf(name.c_str(), "%d.%d.events", &pid, &seq) != 2) continue;
      if (only_pid_ && pid != only_pid_) continue;
      if (tails_.count({pid, seq})) continue;
      Tail t;
      t.path = entry.path().string();
      t.id = parser_.open_file(name);
      tails_.emplace(std::make_pair(pid, seq), std::move(t));
    }
    for (auto it = tails_.begin(); it != tails_.end(); ++it) {
      Tail& t = it->second;
      if (t.closed) continue;
      read_new(t);
      // An exec'd image of the same pid started: this one is complete.
      auto next = std::next(it);
      if (next != tails_.end() && next->first.first == it->first.first) {
        parser_.close_file(t.id, false);
        t.closed = true;
      }
    }
  }

  void close_all(int root_pid, bool root_crashed) {
    poll();
    for (auto& [key, t] : tails_) {
      if (t.closed) continue;
      parser_.close_file(t.id, root_crashed && key.first == root_pid);
      t.closed = true;
    }
  }

  bool any() const { return !tails_.empty(); }

 private:
  struct Tail {
    std::string path;
    int id = 0;
    uint64_t offset = 0;    // bytes read
    uint64_t released = 0;  // bytes given back to the file system (a hole)
    std::string partial;
    bool closed = false;
  };

  // Reads what the tool appended since the last time, then gives the blocks read back to the
  // file system (a hole punched in the file: its size stays, its disk use does not grow), so
  // that the temporary files of a run hold what has not been read yet, not every boundary of
  // the run (about 100 bytes each). Where the file system cannot punch holes the file keeps
  // its blocks until the run ends, as before.
  void read_new(Tail& t) {
    int fd = ::open(t.path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return;
    std::vector<char> buf(1 << 16);
    for (;;) {
      ssize_t got = ::pread(fd, buf.data(), buf.size(), off_t(t.offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      t.offset += uint64_t(got);
      size_t start = 0;
      for (size_t i = 0; i < size_t(got); ++i) {
        if (buf[i] != '\n') continue;
        if (t.partial.empty()) {
          parser_.line(t.id, std::string_view(buf.data() + start, i - start));
        } else {
          t.partial.append(buf.data() + start, i - start);
          parser_.line(t.id, t.partial);
          t.partial.clear();
        }
        start = i + 1;
      }
      t.partial.append(buf.data() + start, size_t(got) - start);
    }
    constexpr uint64_t kBlock = 1 << 20;  // punched a MiB at a time
    uint64_t done = t.offset / kBlock * kBlock;
    if (done > t.released &&
        ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(t.released), off_t(done - t.released)) == 0)
      t.released = done;
    ::close(fd);
  }

  std::string dir_;
  EventParser& parser_;
  int only_pid_ = 0;
  std::map<std::pair<int, int>, Tail> tails_;
};

// The first instruction valgrind could not decode, from its logs (one per process).
std::optional<Undecodable> undecodable(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".log") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    if (auto u = parse_undecodable(text.str())) return u;
  }
  return std::nullopt;
}

std::string first_valgrind_error(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".log") continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      auto at = line.find("valgrind: ");
      if (at == std::string::npos) continue;
      std::string error = line.substr(at), next;
      // "valgrind: the 'impossible' happened:" says what on the next line.
      if (!error.empty() && error.back() == ':' && std::getline(in, next)) {
        const size_t from = next.find_first_not_of(" \t");
        if (from != std::string::npos) error += " " + next.substr(from);
      }
      return error;
    }
  }
  return "";
}

// ROOFPROF_LOG=emul: the command, the simulated caches and whether the agent rides along.
void log_launch(const std::vector<std::string>& args, const std::vector<CacheInfo>& cache, bool agent) {
  if (!log::on(log::Category::Emul)) return;
  std::string command, levels;
  for (const auto& a : args) command += (command.empty() ? "" : " ") + a;
  for (const auto& l : cache) levels += fmt::format(" {}B/{}-way/{}B-line", l.size, l.ways, l.line);
  log::line(log::Category::Emul, "launch {}", command);
  log::line(log::Category::Emul, "caches simulated:{}; in-process agent {}", cache.empty() ? " none" : levels,
            agent ? "loaded (client requests)" : "not loaded");
}

}  // namespace

std::vector<std::string> exact_vex_options() {
  return {"--vex-iropt-level=0", "--vex-iropt-unroll-thresh=0", "--vex-guest-chase=no"};
}

std::string find_tool_dir(const std::string& configured) {
  std::vector<fs::path> candidates;
  if (!configured.empty()) {
    candidates.push_back(configured);
  } else {
    // The build tree's directory only for executables without companions of their own (the unit
    // tests): an installed roofprof never falls back on the tree it was built in.
    const std::string own = companion_dir();
    if (!own.empty()) candidates.push_back(own);
    if (*ROOFPROF_EMUL_BUILD_TOOL_DIR && (own.empty() || !fs::is_directory(own)))
      candidates.push_back(ROOFPROF_EMUL_BUILD_TOOL_DIR);
  }
  for (const auto& dir : candidates)
    if (executable(dir / kTool) && fs::exists(dir / "vgpreload_core-amd64-linux.so")) return dir.string();
  std::string looked;
  for (const auto& dir : candidates) looked += (looked.empty() ? "" : ", ") + dir.string();
  throw UserError(fmt::format("roofprof's valgrind tool {} is missing (looked in {}); rebuild roofprof", kTool, looked));
}

Result run(const std::vector<std::string>& argv, const std::vector<probes::PlannedProbe>& probes, const Options& options) {
  if (argv.empty()) throw UserError("no program to run");
  std::string tool_dir = find_tool_dir(options.tool_dir);
  const std::string launcher = options.valgrind.empty()
                                   ? valgrind_engine_in(tool_dir, ROOFPROF_VALGRIND_EXECUTABLE, "").launcher
                                   : options.valgrind;
  std::string valgrind = find_in_path(launcher);
  if (valgrind.empty() || !executable(valgrind))
    throw UserError(fmt::format("{} not found: install valgrind (scripts/install-deps.sh) or use another backend",
                                launcher));
  runnable_program(argv[0]);  // UserError: not found, not executable
  std::string agent_library;
  if (options.agent) {
    agent_library = tool_dir + "/libroofprof-preload.so";
    if (!fs::exists(agent_library))
      throw UserError(fmt::format("the in-process agent is missing ({}): rebuild roofprof", agent_library));
  }
  std::vector<CacheInfo> cache;
  if (options.cache_sim) {
    const bool host = options.cache.empty() || options.cache_is_host;
    cache = options.cache.empty() ? host_cache_geometry() : options.cache;
    check_cache_geometry(cache);
    cache = simulated_hierarchy(cache, options.last_level_inclusive, host,
                                host ? host_caches().cpuid : std::vector<CacheInfo>{});
  }

  TempDir tmp("roofprof-emul", "the emulation files");
  if (const char* keep = std::getenv("ROOFPROF_KEEP_EMUL"); keep && *keep && std::string(keep) != "0") tmp.keep();
  std::string probe_file = tmp.path() + "/probes";
  write_probe_file(probe_file, probes);
  std::string events_dir = tmp.path() + "/events";
  fs::create_directory(events_dir);

  std::vector<std::string> args{valgrind, "--tool=roofprof"};
  for (auto& o : exact_vex_options()) args.push_back(o);
  args.push_back(fmt::format("--log-file={}/valgrind.%p.log", tmp.path()));
  // No gdbserver: its FIFOs in $TMPDIR would outlive a valgrind killed by a second signal.
  args.push_back("--vgdb=no");
  args.push_back("--probes=" + probe_file);
  args.push_back("--out-dir=" + events_dir);
  const bool progress = options.progress != Options::ProgressOutput::None;
  const bool terminal = options.progress == Options::ProgressOutput::Terminal;
  args.push_back(progress ? "--progress-interval=500" : "--progress-interval=0");
  // Followed, an exec'd image runs under valgrind again; else it runs outside, without
  // valgrind's variables (the tool's --clean-exec-env).
  args.push_back(options.follow_exec ? "--trace-children=yes" : "--clean-exec-env=yes");
  if (options.cache_sim) {
    args.push_back("--cache-sim=yes");
    if (options.cold_at_entry) args.push_back("--cold-at-entry=yes");
    if (!options.cache_inline) args.push_back("--cache-inline=no");
    for (const auto& l : cache) args.push_back(fmt::format("--cache-level={},{},{}", l.size, l.ways, l.line));
    args.push_back(cache.back().inclusive.value_or(true) ? "--cache-last=inclusive" : "--cache-last=victim");
  }
  if (options.annotate) args.push_back("--annotate=yes");
  args.insert(args.end(), argv.begin(), argv.end());
  log_launch(args, cache, options.agent.has_value());

  Result result;
  result.simulated_caches = cache;
  uint64_t calls_done = 0;
  EventParser parser(
      probes, options.scope,
      [&](regions::Instance&& inst) {
        ++calls_done;
        if (options.on_instance) options.on_instance(inst);
        result.aggregate.add(inst);
        if (!options.keep_calls || options.keep_calls(inst.region)) result.instances.push_back(std::move(inst));
      },
      options.agent ? options.agent->region_ids : AgentRegions{});
  EventFiles files(events_dir, parser);

  if (progress)
    std::fprintf(stderr,
                 "roofprof: emulating under valgrind for exact counts (tens of times slower than native)\n");

  supervisor::Launch launch;
  launch.path = valgrind;
  launch.argv = args;
  launch.in_child = [&] {
    setenv("VALGRIND_LIB", tool_dir.c_str(), 1);
    // valgrind runs one thread at a time: spinning OpenMP workers only burn time slices.
    setenv("OMP_WAIT_POLICY", "passive", 0);
    if (options.agent) {
      const char* old = std::getenv("LD_PRELOAD");
      std::string preload = agent_library + (old && *old ? std::string(":") + old : "");
      setenv("LD_PRELOAD", preload.c_str(), 1);
      setenv(RP_ENV_AGENT_EMUL, "1", 1);
      setenv(RP_ENV_AGENT_REGIONS, options.agent->regions.c_str(), 1);
      setenv(RP_ENV_AGENT_PID, std::to_string(getpid()).c_str(), 1);  // valgrind keeps the pid
      setenv(RP_ENV_AGENT_FOLLOW_FORK, options.follow_exec ? "1" : "0", 1);
      unsetenv(RP_ENV_AGENT_DIR);
      unsetenv(RP_ENV_AGENT_EVENTS);
      // The cold scenario is the tool's (--cold-at-entry): the agent's own eviction would be
      // agent code, neither counted nor simulated, and only slow.
      unsetenv(RP_ENV_AGENT_EVICT_BYTES);
    }
  };
  // The signal policy (supervisor/signals.hpp) holds here too: a request is passed on to
  // valgrind (the program under it), which ends within the grace period or is killed.
  supervisor::InterruptPolicy interrupts(false);
  supervisor::Child child(supervisor::start(launch), interrupts);
  result.pid = child.pid();  // valgrind runs the program in its own process
  if (!options.follow_exec) files.only_pid(result.pid);

  auto start = std::chrono::steady_clock::now();
  try {
    constexpr double kLinesEvery = 10;   // seconds between plain progress lines
    constexpr double kBarEvery = 0.25;   // seconds between updates of the terminal's bar
    double next_line = kLinesEvery, next_bar = 0;
    // The files are read every 50 ms: what has been read is given back to the file system.
    while (!child.wait(std::chrono::milliseconds(50))) {
      files.poll();
      if (!progress) continue;
      Progress p;
      p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (terminal && p.elapsed_s < next_bar) continue;
      next_bar = p.elapsed_s + kBarEvery;
      p.instructions = parser.instructions();
      p.calls_done = calls_done;
      p.calls_expected = options.expected_calls;
      if (auto region = parser.current_region())
        p.region = options.region_name ? options.region_name(*region) : fmt::format("region {}", *region);
      if (terminal) {
        std::fprintf(stderr, "\r\033[K%s", progress_line(p, true).c_str());
      } else if (p.elapsed_s >= next_line) {
        std::fprintf(stderr, "%s\n", progress_line(p, false).c_str());
        next_line = p.elapsed_s + kLinesEvery;
      }
    }
  } catch (...) {
    // Do not leave valgrind running behind an error.
    kill(child.pid(), SIGKILL);
    waitpid(child.pid(), nullptr, 0);
    if (terminal) std::fprintf(stderr, "\r\033[K");
    throw;
  }
  if (terminal) std::fprintf(stderr, "\r\033[K");
  int status = child.status();
  result.interrupted = interrupts.interrupted();

  bool crashed = WIFSIGNALED(status);
  if (crashed) result.signal = WTERMSIG(status);
  else result.exit_code = WEXITSTATUS(status);

  if (crashed && result.signal == SIGILL) {
    if (auto u = undecodable(tmp.path())) throw UserError(undecodable_message(argv[0], *u));
  }
  if (crashed || result.exit_code != 0) result.log_error = first_valgrind_error(tmp.path());
  files.close_all(result.pid, crashed);
  if (!files.any() && !result.interrupted) {
    std::string why = first_valgrind_error(tmp.path());
    throw UserError(fmt::format("valgrind did not run {}{}", argv[0], why.empty() ? "" : ": " + why));
  }
  const auto& execed = parser.execed();
  result.execed_unmeasured =
      !options.follow_exec && std::find(execed.begin(), execed.end(), result.pid) != execed.end();
  result.counters = parser.counters();
  result.totals = parser.totals();
  if (options.annotate) result.annotation = read_annotation(events_dir);
  return result;
}

}  // namespace roofprof::emul
