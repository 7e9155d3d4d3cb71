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
#include "emul/events_format.h"
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

namespace {

// What the emulated run launches: valgrind, the directory of roofprof's tool and, when the agent
// rides along, its library. UserError for anything missing.
struct Launcher {
  std::string tool_dir, valgrind, agent_library;
};

Launcher find_launcher(const std::string& program, const Options& options) {
  Launcher l;
  l.tool_dir = find_tool_dir(options.tool_dir);
  const std::string launcher = options.valgrind.empty()
                                   ? valgrind_engine_in(l.tool_dir, ROOFPROF_VALGRIND_EXECUTABLE, "").launcher
                                   : options.valgrind;
  l.valgrind = find_in_path(launcher);
  if (l.valgrind.empty() || !executable(l.valgrind))
    throw UserError(fmt::format("{} not found: install valgrind (scripts/install-deps.sh) or use another backend",
                                launcher));
  runnable_program(program);  // UserError: not found, not executable
  if (options.agent) {
    l.agent_library = l.tool_dir + "/libroofprof-preload.so";
    if (!fs::exists(l.agent_library))
      throw UserError(fmt::format("the in-process agent is missing ({}): rebuild roofprof", l.agent_library));
  }
  return l;
}

// The hierarchy the tool simulates: the given or the host's, as the simulator models it.
std::vector<CacheInfo> simulated_cache(const Options& options) {
  if (!options.cache_sim) return {};
  const bool host = options.cache.empty() || options.cache_is_host;
  std::vector<CacheInfo> cache = options.cache.empty() ? host_cache_geometry() : options.cache;
  check_cache_geometry(cache);
  return simulated_hierarchy(cache, options.last_level_inclusive, host,
                             host ? host_caches().cpuid : std::vector<CacheInfo>{});
}

// One of the tool's options (emul/events_format.h) with its value.
std::string opt(const char* name, const std::string& value) { return std::string(name) + "=" + value; }

// valgrind's command line: the tool, its options (emul/tool/rp_main.c), then the program.
std::vector<std::string> tool_args(const Launcher& l, const std::vector<std::string>& argv, const Options& options,
                                   const std::vector<CacheInfo>& cache, const std::string& tmp,
                                   const std::string& probe_file, const std::string& events_dir) {
  std::vector<std::string> args{l.valgrind, "--tool=roofprof"};
  for (auto& o : exact_vex_options()) args.push_back(o);
  args.push_back(fmt::format("--log-file={}/valgrind.%p.log", tmp));
  // No gdbserver: its FIFOs in $TMPDIR would outlive a valgrind killed by a second signal.
  args.push_back("--vgdb=no");
  args.push_back(opt(RP_OPT_PROBES, probe_file));
  args.push_back(opt(RP_OPT_OUT_DIR, events_dir));
  args.push_back(opt(RP_OPT_PROGRESS_INTERVAL, options.progress != Options::ProgressOutput::None ? "500" : "0"));
  // Followed, an exec'd image runs under valgrind again; else it runs outside, without
  // valgrind's variables (the tool's --clean-exec-env).
  args.push_back(options.follow_exec ? "--trace-children=yes" : opt(RP_OPT_CLEAN_EXEC_ENV, "yes"));
  if (options.cache_sim) {
    args.push_back(opt(RP_OPT_CACHE_SIM, "yes"));
    if (options.cold_at_entry) args.push_back(opt(RP_OPT_COLD_AT_ENTRY, "yes"));
    if (!options.cache_inline) args.push_back(opt(RP_OPT_CACHE_INLINE, "no"));
    for (const auto& c : cache) args.push_back(opt(RP_OPT_CACHE_LEVEL, fmt::format("{},{},{}", c.size, c.ways, c.line)));
    args.push_back(opt(RP_OPT_CACHE_LAST, cache.back().inclusive.value_or(true) ? "inclusive" : "victim"));
  }
  if (options.annotate) args.push_back(opt(RP_OPT_ANNOTATE, "yes"));
  args.insert(args.end(), argv.begin(), argv.end());
  return args;
}

// In the child, before exec: valgrind's environment and, when the agent rides along, the agent's.
void set_child_environment(const Launcher& l, const Options& options) {
  setenv("VALGRIND_LIB", l.tool_dir.c_str(), 1);
  // valgrind runs one thread at a time: spinning OpenMP workers only burn time slices.
  setenv("OMP_WAIT_POLICY", "passive", 0);
  if (!options.agent) return;
  const char* old = std::getenv("LD_PRELOAD");
  std::string preload = l.agent_library + (old && *old ? std::string(":") + old : "");
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

// Until valgrind ends: the event files read every 50 ms (what has been read is given back to the
// file system), and the progress shown. Kills valgrind when anything throws.
void follow(supervisor::Child& child, EventFiles& files, const EventParser& parser, const Options& options,
            const uint64_t& calls_done) {
  const bool progress = options.progress != Options::ProgressOutput::None;
  const bool terminal = options.progress == Options::ProgressOutput::Terminal;
  const auto start = std::chrono::steady_clock::now();
  try {
    constexpr double kLinesEvery = 10;  // seconds between plain progress lines
    constexpr double kBarEvery = 0.25;  // seconds between updates of the terminal's bar
    double next_line = kLinesEvery, next_bar = 0;
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
}

// How valgrind ended, into `result`; UserError where it never ran the program or met an
// instruction it cannot decode.
void take_ending(Result& result, int status, const std::string& program, const std::string& tmp, EventFiles& files) {
  const bool crashed = WIFSIGNALED(status);
  if (crashed) result.signal = WTERMSIG(status);
  else result.exit_code = WEXITSTATUS(status);
  if (crashed && result.signal == SIGILL) {
    if (auto u = undecodable(tmp)) throw UserError(undecodable_message(program, *u));
  }
  if (crashed || result.exit_code != 0) result.log_error = first_valgrind_error(tmp);
  files.close_all(result.pid, crashed);
  if (!files.any() && !result.interrupted) {
    std::string why = first_valgrind_error(tmp);
    throw UserError(fmt::format("valgrind did not run {}{}", program, why.empty() ? "" : ": " + why));
  }
}

}  // namespace

Result run(const std::vector<std::string>& argv, const std::vector<probes::PlannedProbe>& probes, const Options& options) {
  if (argv.empty()) throw UserError("no program to run");
  const Launcher launcher = find_launcher(argv[0], options);
  const std::vector<CacheInfo> cache = simulated_cache(options);

  TempDir tmp("roofprof-emul", "the emulation files");
  if (const char* keep = std::getenv("ROOFPROF_KEEP_EMUL"); keep && *keep && std::string(keep) != "0") tmp.keep();
  const std::string probe_file = tmp.path() + "/probes";
  write_probe_file(probe_file, probes);
  const std::string events_dir = tmp.path() + "/events";
  fs::create_directory(events_dir);
  const auto args = tool_args(launcher, argv, options, cache, tmp.path(), probe_file, events_dir);
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
  if (options.progress != Options::ProgressOutput::None)
    std::fprintf(stderr,
                 "roofprof: emulating under valgrind for exact counts (tens of times slower than native)\n");

  supervisor::Launch launch;
  launch.path = launcher.valgrind;
  launch.argv = args;
  launch.in_child = [&] { set_child_environment(launcher, options); };
  // The signal policy (supervisor/signals.hpp) holds here too: a request is passed on to
  // valgrind (the program under it), which ends within the grace period or is killed.
  supervisor::InterruptPolicy interrupts(false);
  supervisor::Child child(supervisor::start(launch), interrupts);
  result.pid = child.pid();  // valgrind runs the program in its own process
  if (!options.follow_exec) files.only_pid(result.pid);
  follow(child, files, parser, options, calls_done);
  result.interrupted = interrupts.interrupted();
  take_ending(result, child.status(), argv[0], tmp.path(), files);

  const auto& execed = parser.execed();
  result.execed_unmeasured =
      !options.follow_exec && std::find(execed.begin(), execed.end(), result.pid) != execed.end();
  result.counters = parser.counters();
  result.totals = parser.totals();
  if (options.annotate) result.annotation = read_annotation(events_dir);
  return result;
}

}  // namespace roofprof::emul
