#include "counters/scripted_pmu.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
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

bool core_type_name(const std::string& name) {
  return name == "cpu_core" || name == "cpu_atom" || name == "cpu_lowpower";
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

void ScriptedPmu::parse(const std::string& script, const std::string& source,
                        std::vector<std::tuple<std::string, int, std::string>>& pmus) {
  std::istringstream in(script);
  std::string line;
  int lineno = 0;
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
    auto type = [&](const std::string& t) {
      return t == "*" ? -1 : t == "hw" ? PERF_TYPE_HARDWARE : t == "sw" ? PERF_TYPE_SOFTWARE
             : t == "raw" ? PERF_TYPE_RAW : static_cast<int>(number(t));
    };
    auto key = [&](size_t i) {
      if (w.size() <= i + 1) fail(w[0] + " needs TYPE CONFIG");
      return Key{type(w[i]), w[i + 1] == "*" ? -1 : number(w[i + 1])};
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
      if (core_type_name(w[1])) {
        const int t = static_cast<int>(number(w[2]));
        core_order_.push_back(t);
        core_types_.insert(t);
      }
    } else if (k == "fail" && w.size() == 4) {
      const int e = errno_named(w[3]);
      if (!e) fail("unknown errno name '" + w[3] + "'");
      failures_.emplace_back(key(1), e);
    } else if (k == "counters" && (w.size() == 2 || w.size() == 3)) {
      const int n = static_cast<int>(number(w[1]));
      if (w.size() == 2) default_counters_ = n;
      else counters_[type(w[2]) == PERF_TYPE_HARDWARE ? PERF_TYPE_RAW : type(w[2])] = n;
    } else if (k == "fixed" && w.size() == 3) {
      fixed_.push_back(key(1));
    } else if (k == "watchdog" && w.size() == 2 && (w[1] == "gp" || w[1] == "off")) {
      watchdog_ = w[1] == "gp" ? Watchdog::gp : Watchdog::off;
    } else if (k == "watchdog" && w.size() == 4 && w[1] == "fixed") {
      watchdog_ = Watchdog::fixed;
      watchdog_fixed_ = {key(2)};
    } else if (k == "ticks" && w.size() == 2) {
      ticks_ = static_cast<int>(number(w[1]));
      if (ticks_ < 1 || 1000 % ticks_) fail("ticks must divide 1000 (a step is 1000 ns)");
    } else if (k == "residency" && w.size() >= 3) {
      residency_.push_back({Key{type(w[1]), -1}, doubles(2)});
    } else if (k == "count") {
      counts_.push_back({key(1), doubles(3)});
    } else if (k == "schedule") {
      schedules_.push_back({key(1), doubles(3)});
    } else {
      fail("unknown or malformed line (cpu, kernel, pmu, fail, counters, fixed, watchdog, ticks, "
           "residency, count, schedule)");
    }
  }
}

void ScriptedPmu::default_watchdog() {
  if (watchdog_ != Watchdog::unset) return;
  auto it = kernel_.find("nmi_watchdog");
  if (it == kernel_.end() || it->second == 0) {
    watchdog_ = Watchdog::off;
  } else if (cpu_.vendor == "AuthenticAMD") {
    watchdog_ = Watchdog::gp;
  } else {  // Intel's watchdog counts cycles, on the fixed cycles counter
    watchdog_ = Watchdog::fixed;
    watchdog_fixed_ = {Key{-1, 0x3c}, Key{PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES}};
  }
}

ScriptedPmu::ScriptedPmu(const std::string& script, const std::string& source) {
  std::vector<std::tuple<std::string, int, std::string>> pmus;
  parse(script, source, pmus);
  default_watchdog();
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
  Event e{attr, group_fd >= 0 ? group_fd : fd, {}};
  events_[fd] = e;
  events_[e.leader].members.push_back(fd);
  if (group_fd < 0) {
    const long key = pid >= 0 ? static_cast<long>(pid) : -(static_cast<long>(cpu) + 2);
    Timeline& t = timelines_[key];
    (attr.pinned ? t.pinned : t.flexible).push_back(fd);
    timeline_key_[fd] = key;
    events_[fd].read_at = t.steps;
  }
  opened_.push_back({attr, pid, cpu, group_fd});
  return fd;
}

ScriptedPmu::Timeline& ScriptedPmu::timeline_of(int leader) { return timelines_.at(timeline_key_.at(leader)); }

ssize_t ScriptedPmu::read(int fd, void* buf, size_t size) {
  auto it = events_.find(fd);
  if (it == events_.end()) {
    errno = EBADF;
    return -1;
  }
  const int leader_fd = it->second.leader;
  Timeline& t = timeline_of(leader_fd);
  if (events_.at(leader_fd).read_at == t.steps) advance(t);
  Event& leader = events_.at(leader_fd);
  leader.read_at = t.steps;
  if (leader.error) return 0;  // the kernel's end of file for a group in error state
  const bool group = leader.attr.read_format & PERF_FORMAT_GROUP;
  const std::vector<int> members = group ? leader.members : std::vector<int>{fd};
  auto raw = [&](int m) { return static_cast<uint64_t>(std::llround(events_.at(m).raw)); };
  std::vector<uint64_t> out;
  if (group) {
    out.push_back(members.size());
    out.push_back(leader.enabled);
    out.push_back(leader.running);
    for (int m : members) out.push_back(raw(m));
  } else {
    out = {raw(fd), leader.enabled, leader.running};
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
  if (leader == fd) {
    Timeline& t = timeline_of(fd);
    std::erase(t.pinned, fd);
    std::erase(t.flexible, fd);
    for (auto f = t.last_first_active.begin(); f != t.last_first_active.end();)
      f = f->second == fd ? t.last_first_active.erase(f) : std::next(f);
    timeline_key_.erase(fd);
  }
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
