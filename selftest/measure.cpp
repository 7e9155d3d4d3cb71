#include "selftest/measure.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/layout.hpp"
#include "result/result.hpp"
#include "supervisor/ending.hpp"

namespace fs = std::filesystem;

namespace roofprof::selftest {
namespace {

std::string last_line(const std::string& path) {
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line))
    if (!line.empty() && line.find("\r") == std::string::npos) last = line;
  return last;
}

// Runs argv with stdout to /dev/null and stderr to `err`; returns the exit status (or 128 + signal).
int run_quietly(const std::vector<std::string>& argv, const std::string& err) {
  pid_t pid = ::fork();
  if (pid < 0) throw UserError(fmt::format("cannot fork: {}", std::strerror(errno)));
  if (pid == 0) {
    int out = ::open("/dev/null", O_WRONLY);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (out >= 0) ::dup2(out, 1);
    if (e >= 0) ::dup2(e, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return supervisor::Ending::of_wait_status(status).exit_code();
}

}  // namespace

std::string kernels_program() {
  const std::string dir = companion_dir();
  fs::path prog = fs::path(dir) / "roofprof-selftest-kernels";
  if (dir.empty() || ::access(prog.c_str(), X_OK) != 0)
    throw UserError(fmt::format("the selftest kernels are missing ({}): rebuild roofprof", prog.string()));
  return prog.string();
}

std::vector<Sample> read_samples(const std::string& result_file, const std::vector<Case>& cases) {
  result::Run run = result::read_file(result_file);
  std::vector<Sample> out;
  for (const Case& c : cases) {
    const result::Region* region = nullptr;
    for (const auto& r : run.regions)
      if (r.name == c.kernel->symbol) region = &r;
    if (!region || region->calls == 0)
      throw UserError(fmt::format("{}: region {} was not measured", result_file, c.kernel->symbol));
    double calls = double(region->calls);
    Sample s;
    if (region->flops) s.work = *region->flops / calls;
    for (const auto& [cls, v] : region->flops_by_class) s.flops_by_class[cls] = v / calls;
    if (auto it = region->bytes.find("DRAM"); it != region->bytes.end()) {
      if (it->second.read) s.read = *it->second.read / calls;
      if (it->second.write) s.write = *it->second.write / calls;
    }
    if (region->time_per_call_s) {
      s.time_min_s = region->time_per_call_s->min;
      s.time_max_s = region->time_per_call_s->max;
    }
    s.multiplexed = region->counters_multiplexed;
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<Row> measure(const Plan& plan, const std::string& backend, const Runner& runner) {
  std::vector<Row> rows;
  for (const Case& c : plan.cases) rows.push_back(Row{c, backend, {}});
  // One program run per (size class, cache state): every kernel of that group, one region each.
  for (SizeClass size : {SizeClass::InLlc, SizeClass::BeyondLlc}) {
    for (const char* state : {"cold", "warm"}) {
      std::vector<size_t> idx;
      for (size_t i = 0; i < rows.size(); ++i)
        if (rows[i].c.size == size && rows[i].c.cache_state == state) idx.push_back(i);
      if (idx.empty()) continue;
      std::vector<Case> cases;
      for (size_t i : idx) cases.push_back(rows[i].c);
      for (int r = 0; r < plan.runs; ++r) {
        std::string tag = fmt::format("{}-{}-{}-{}", backend, size == SizeClass::InLlc ? "in" : "beyond", state, r);
        std::string out = runner.workdir + "/" + tag + ".json";
        std::string err = runner.workdir + "/" + tag + ".log";
        std::vector<std::string> argv{runner.roofprof, "run", "--backend", backend, "--cache-state", state,
                                      "--quiet", "-o", out};
        if (backend == "emul" && !runner.cache_geometry.empty())
          argv.insert(argv.end(), {"--cache-geometry", runner.cache_geometry});
        for (const Case& c : cases) argv.insert(argv.end(), {"--region", c.kernel->symbol});
        argv.insert(argv.end(), {"--", runner.kernels, std::to_string(plan.calls)});
        for (const Case& c : cases) argv.push_back(fmt::format("{}={}", c.kernel->name, c.n));
        if (runner.progress)
          runner.progress(fmt::format("{} {}, {}, {} kernels (run {} of {})", backend, to_string(size), state,
                                      cases.size(), r + 1, plan.runs));
        int status = run_quietly(argv, err);
        if (status != 0) {
          std::string why = last_line(err);
          if (why.rfind("roofprof: ", 0) == 0) why = why.substr(10);
          throw UserError(fmt::format("roofprof run --backend {} failed on the selftest kernels (exit {}){}", backend,
                                      status, why.empty() ? "" : ": " + why));
        }
        auto samples = read_samples(out, cases);
        for (size_t k = 0; k < idx.size(); ++k) rows[idx[k]].samples.push_back(std::move(samples[k]));
      }
    }
  }
  return rows;
}

}  // namespace roofprof::selftest
