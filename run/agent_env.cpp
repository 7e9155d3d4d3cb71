#include "run/agent_env.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>

#include "common/error.hpp"
#include "common/layout.hpp"
#include "counters/perf_system.hpp"
#include "preload/record_format.h"
#include "preload/env_format.h"

extern char** environ;

namespace roofprof::run {

namespace fs = std::filesystem;

preload::AgentEvents agent_events(const counters::Backend& backend) {
  return preload::agent_events(backend.thread_groups(), backend.events().size());
}

bool agent_counts_events(const counters::Backend& backend) {
  preload::AgentEvents events;
  try {
    events = agent_events(backend);
  } catch (const UserError&) {
    return false;
  }
  // The agent opens its events in the kernel: where roofprof's hardware events come from a
  // scripted PMU (test builds), the agent has them only from a script of its own.
  const bool scripted = counters::scripted_pmu_honoured() && std::getenv("ROOFPROF_SCRIPTED_PMU");
  return events.timed.empty() || !scripted || std::getenv(RP_ENV_AGENT_SCRIPTED_PMU);
}

std::string regions_setting(const probes::Planner& planner) {
  std::string out;
  const auto& specs = planner.specs();
  for (size_t i = 0; i < specs.size(); ++i)
    if (specs[i].kind == regions::RegionKind::Function) out += fmt::format("{}:{}\n", i, specs[i].start.symbol);
  // The kernel refuses to start a program with an environment string of 128 KiB or more
  // (MAX_ARG_STRLEN): said now, not as the program's exec failing.
  constexpr size_t kMaxEnvString = 32 * 4096;
  if (out.size() + sizeof RP_ENV_AGENT_REGIONS "=" >= kMaxEnvString)
    throw UserError(fmt::format("the names of the {} regions take {} KiB, more than the 128 KiB the program's "
                                "environment can pass to the in-process agent: give fewer regions (a glob such as "
                                "'prefix*' covers many) or use --no-preload",
                                specs.size(), out.size() / 1024));
  return out;
}

std::string agent_library() {
  const std::string dir = companion_dir();
  fs::path lib = fs::path(dir) / "libroofprof-preload.so";
  if (dir.empty() || !fs::exists(lib)) throw UserError(fmt::format("the in-process agent is missing ({}): rebuild roofprof", lib.string()));
  return lib.string();
}

std::map<std::string, std::string> agent_settings(const supervisor::RunOptions& so, const counters::Backend& backend,
                                                  const probes::Planner& planner, const std::string& dir) {
  std::map<std::string, std::string> settings = {
      {RP_ENV_AGENT_DIR, dir},
      {RP_ENV_AGENT_REGIONS, regions_setting(planner)},
      {RP_ENV_AGENT_SCOPE, so.scope == regions::Scope::Thread ? RP_ENV_AGENT_SCOPE_THREAD : RP_ENV_AGENT_SCOPE_PROCESS},
      {RP_ENV_AGENT_EVENTS, agent_events(backend).setting},
      {RP_ENV_AGENT_FOLLOW_FORK, so.follow_fork ? "1" : "0"},
      {RP_ENV_AGENT_CONSUMER, std::to_string(::getpid())},
  };
  std::string preload = agent_library();
  if (const char* old = std::getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  settings["LD_PRELOAD"] = preload;
  if (so.agent_user_level) settings[RP_ENV_AGENT_USER_LEVEL] = "1";
  if (so.observer->keys_returns()) settings[RP_ENV_AGENT_CALLERS] = "1";  // --group-by caller
  if (so.agent_cheap_factor) settings[RP_ENV_AGENT_CHEAP_FACTOR] = std::to_string(so.agent_cheap_factor);
  if (so.agent_evict_bytes) settings[RP_ENV_AGENT_EVICT_BYTES] = std::to_string(so.agent_evict_bytes);
  if (const char* ring = std::getenv(RP_ENV_AGENT_RING)) settings[RP_ENV_AGENT_RING] = ring;
  return settings;
}

ChildEnv::ChildEnv(const std::map<std::string, std::string>& set) {
  for (char** p = environ; *p; ++p) {
    std::string kv = *p;
    std::string key = kv.substr(0, kv.find('='));
    if (set.count(key) || key == "LD_PRELOAD" || key == RP_ENV_AGENT_PID) continue;
    entries_.push_back(kv);
  }
  for (const auto& [k, v] : set) entries_.push_back(k + "=" + v);
  pid_entry_ = entries_.size();
  entries_.push_back(RP_ENV_AGENT_PID "=" + std::string(20, ' '));
  for (auto& s : entries_) pointers_.push_back(s.data());
  pointers_.push_back(nullptr);
}

char* const* ChildEnv::for_child(pid_t pid) {
  char digits[16];
  int n = 0;
  for (unsigned v = unsigned(pid); v || n == 0; v /= 10) digits[n++] = char('0' + v % 10);
  char* out = pointers_[pid_entry_] + std::strlen(RP_ENV_AGENT_PID "=");
  while (n) *out++ = digits[--n];
  *out = '\0';
  return pointers_.data();
}

}  // namespace roofprof::run
