#include "counters/scripted_pmu.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "common/error.hpp"

namespace roofprof::counters {
namespace {

int errno_named(const std::string& name) {
  static const std::map<std::string, int> names = {
      {"ENOENT", ENOENT}, {"EACCES", EACCES}, {"EPERM", EPERM}, {"EBUSY", EBUSY},
      {"EINVAL", EINVAL}, {"EOPNOTSUPP", EOPNOTSUPP}, {"EMFILE", EMFILE}, {"ENODEV", ENODEV}};
  auto it = names.find(name);
  return it == names.end() ? 0 : it->second;
}

}  // namespace

bool ScriptedPmu::matches(const Key& k, const perf_event_attr& a) {
  return (k.type < 0 || static_cast<uint32_t>(k.type) == a.type) &&
         (k.config < 0 || static_cast<uint64_t>(k.config) == a.config);
}

const ScriptedPmu::Rule* ScriptedPmu::find(const std::vector<Rule>& rules,
                                           const perf_event_attr& a) const {
  for (const Rule& r : rules)
    if (matches(r.key, a)) return &r;
  return nullptr;
}

bool ScriptedPmu::programmable(const perf_event_attr& a) const {
  if (a.type == PERF_TYPE_SOFTWARE || a.type == PERF_TYPE_TRACEPOINT) return false;
  for (const Key& k : fixed_)
    if (matches(k, a)) return false;
  return true;
}

ScriptedPmu::ScriptedPmu(const std::string& script, const std::string& source) {
  std::istringstream in(script);
  std::string line;
  int lineno = 0;
  std::vector<std::tuple<std::string, int, std::string>> pmus;
  while (std::getline(in, line)) {
    ++lineno;
    auto fail = [&](const std::string& what) {
      throw UserError(fmt::format("{}:{}: {}", source, lineno, what));
    };
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    auto number = [&](const std::string& s) -> long long {
      char* end = nullptr;
      const long long v = std::strtoll(s.c_str(), &end, 0);
      if (s.empty() || *end) fail("not a number: '" + s + "'");
      return v;
    };
    auto key = [&](size_t i) {
      if (w.size() <= i + 1) fail(w[0] + " needs TYPE CONFIG");
      Key k;
      const std::string& t = w[i];
      k.type = t == "*" ? -1 : t == "hw" ? PERF_TYPE_HARDWARE : t == "sw" ? PERF_TYPE_SOFTWARE
               : t == "raw" ? PERF_TYPE_RAW : static_cast<int>(number(t));
      k.config = w[i + 1] == "*" ? -1 : number(w[i + 1]);
      return k;
    };
    auto doubles = [&](size_t from) {
      std::vector<double> v;
      for (size_t i = from; i < w.size(); ++i) v.push_back(std::strtod(w[i].c_str(), nullptr));
      if (v.empty()) fail(w[0] + " needs at least one value");
      return v;
    };
    const std::string& k = w[0];
    if (k == "cpu" && w.size() == 4) {
      cpu_.vendor = w[1];
      cpu_.family = static_cast<int>(number(w[2]));
      cpu_.model = static_cast<int>(number(w[3]));
      cpu_.logical_cpus = 1;
    } else if (k == "kernel" && w.size() == 3) {
      kernel_[w[1]] = static_cast<int>(number(w[2]));
    } else if (k == "pmu" && (w.size() == 3 || w.size() == 4)) {
      pmus.emplace_back(w[1], static_cast<int>(number(w[2])), w.size() == 4 ? w[3] : "0");
    } else if (k == "fail" && w.size() == 4) {
      const int e = errno_named(w[3]);
      if (!e) fail("unknown errno name '" + w[3] + "'");
      failures_.emplace_back(key(1), e);
    } else if (k == "counters" && w.size() == 2) {
      counters_ = static_cast<int>(number(w[1]));
    } else if (k == "fixed" && w.size() == 3) {
      fixed_.push_back(key(1));
    } else if (k == "count") {
      counts_.push_back({key(1), doubles(3)});
    } else if (k == "schedule") {
      schedules_.push_back({key(1), doubles(3)});
    } else {
      fail("unknown or malformed line (cpu, kernel, pmu, fail, counters, fixed, count, schedule)");
    }
  }
  sysfs_ = std::make_unique<TempDir>("roofprof-pmu", "the scripted PMU's sysfs");
  const std::string& root = sysfs_->path();
  for (const auto& [name, type, cpus] : pmus) {
    std::filesystem::create_directories(root + "/" + name);
    std::ofstream(root + "/" + name + "/type") << type << "\n";
    std::ofstream(root + "/" + name + "/cpumask") << cpus << "\n";
  }
}

ScriptedPmu::~ScriptedPmu() {
  for (auto& [fd, e] : events_) ::close(fd);
}

std::optional<int> ScriptedPmu::kernel_setting(const std::string& name) {
  auto it = kernel_.find(name);
  if (it == kernel_.end()) return std::nullopt;
  return it->second;
}

int ScriptedPmu::open(const perf_event_attr& attr, pid_t pid, int cpu, int group_fd) {
  for (const auto& [k, err] : failures_)
    if (matches(k, attr)) {
      errno = err;
      return -1;
    }
  if (group_fd >= 0 && !events_.count(group_fd)) {
    errno = EBADF;
    return -1;
  }
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // a real, unique descriptor
  if (fd < 0) return -1;
  Event e{attr, group_fd >= 0 ? group_fd : fd, {}, 0, 0, 0, 0};
  events_[fd] = e;
  events_[e.leader].members.push_back(fd);
  opened_.push_back({attr, pid, cpu, group_fd});
  return fd;
}

ssize_t ScriptedPmu::read(int fd, void* buf, size_t size) {
  auto it = events_.find(fd);
  if (it == events_.end()) {
    errno = EBADF;
    return -1;
  }
  Event& leader = events_.at(it->second.leader);
  const bool group = leader.attr.read_format & PERF_FORMAT_GROUP;
  const std::vector<int> members = group ? leader.members : std::vector<int>{fd};
  // The group's share of this step: its first scheduled member's rule, 0 if it cannot fit.
  int programmable_events = 0;
  double share = 1;
  bool have_share = false;
  for (int m : leader.members) {
    const perf_event_attr& a = events_.at(m).attr;
    if (programmable(a)) ++programmable_events;
    if (const Rule* r = find(schedules_, a); r && !have_share) {
      share = r->values[leader.steps % r->values.size()];
      have_share = true;
    }
  }
  if (programmable_events > counters_) share = 0;
  const uint64_t step = leader.steps++;
  leader.enabled += 1000;
  leader.running += static_cast<uint64_t>(std::llround(1000 * share));
  for (int m : leader.members) {
    Event& e = events_.at(m);
    if (const Rule* r = find(counts_, e.attr))
      e.raw += static_cast<uint64_t>(std::llround(r->values[step % r->values.size()] * share));
  }
  std::vector<uint64_t> out;
  if (group) {
    out.push_back(members.size());
    out.push_back(leader.enabled);
    out.push_back(leader.running);
    for (int m : members) out.push_back(events_.at(m).raw);
  } else {
    out = {events_.at(fd).raw, leader.enabled, leader.running};
  }
  const size_t bytes = out.size() * sizeof(uint64_t);
  if (size < bytes) {
    errno = ENOSPC;
    return -1;
  }
  std::memcpy(buf, out.data(), bytes);
  return static_cast<ssize_t>(bytes);
}

void ScriptedPmu::close(int fd) {
  auto it = events_.find(fd);
  if (it == events_.end()) return;
  const int leader = it->second.leader;
  ::close(fd);
  events_.erase(it);
  if (auto l = events_.find(leader); l != events_.end())
    std::erase(l->second.members, fd);
}

std::unique_ptr<ScriptedPmu> load_scripted_pmu(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("ROOFPROF_SCRIPTED_PMU: cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return std::make_unique<ScriptedPmu>(ss.str(), path);
}

}  // namespace roofprof::counters
