#include "report/run_facts.hpp"

#include <fmt/format.h>

#include <cstring>

#include "report/format.hpp"

namespace roofprof::report {
namespace {

std::string shell_quote(const std::string& arg) {
  if (arg.empty()) return "''";
  bool plain = true;
  for (char c : arg)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || std::strchr("@%+=:,./_-", c)))
      plain = false;
  if (plain) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "unknown signal";
}

}  // namespace

std::string command_line(const result::Run& run) {
  std::string out;
  for (const auto& arg : run.command) out += (out.empty() ? "" : " ") + shell_quote(arg);
  if (out.empty()) return run.pid ? fmt::format("process {}", *run.pid) : "(unknown command)";
  return out;
}

std::string outcome(const result::Run& run) {
  if (run.term_signal)
    return fmt::format("killed by signal {} ({})", *run.term_signal, signal_name(*run.term_signal));
  if (run.exit_status) return fmt::format("exited with status {}", *run.exit_status);
  if (run.pid && !run.complete) return "detached (still running)";
  return run.complete ? "exit status unknown" : "interrupted (exit status unknown)";
}

std::string simulated_caches_text(const result::Run& run) {
  auto size = [](uint64_t b) {
    if (b % (1ull << 20) == 0) return fmt::format("{}M", b >> 20);
    if (b % (1ull << 10) == 0) return fmt::format("{}K", b >> 10);
    return fmt::format("{}B", b);
  };
  std::string out;
  for (const auto& c : run.simulated_caches)
    out += fmt::format("{}{} {}/{}", out.empty() ? "" : ", ", c.name, size(c.size), c.ways);
  const auto& last = run.simulated_caches.back();
  if (last.inclusive) out += *last.inclusive ? " inclusive" : " non-inclusive";
  return out;
}

std::string run_headline(const result::Run& run) {
  std::string out =
      fmt::format("{}: {}; wall {}; backend {}, scope {}", command_line(run), outcome(run),
                  run.wall_time_s ? format_seconds(*run.wall_time_s) : "not measured",
                  run.backend.empty() ? "unknown" : run.backend, run.scope.empty() ? "unknown" : run.scope);
  if (run.repeat > 1) out += fmt::format(", {} runs", run.repeat);
  if (!run.simulated_caches.empty()) out += "; simulated caches " + simulated_caches_text(run);
  if (!run.complete) out += "; INCOMPLETE: roofprof stopped early, numbers cover the measured part";
  return out;
}

std::optional<std::string> source_of(const result::Region& r, const std::string& quantity) {
  if (auto it = r.sources.find(quantity); it != r.sources.end()) return it->second;
  if (size_t dot = quantity.find('.'); dot != std::string::npos)
    return source_of(r, quantity.substr(0, dot));
  return std::nullopt;
}

uint64_t abnormal_count(const result::Region& r) {
  uint64_t n = 0;
  for (const auto& [reason, count] : r.closed_by)
    if (reason != "return" && reason != "span_stop") n += count;
  return n;
}

std::string abnormal_closes(const result::Region& r) {
  uint64_t n = abnormal_count(r);
  if (n == 0) return "";
  std::string detail;
  for (const auto& [reason, count] : r.closed_by) {
    if (reason == "return" || reason == "span_stop" || count == 0) continue;
    detail += fmt::format("{}{} {}", detail.empty() ? "" : ", ", count, reason);
  }
  return fmt::format("{} of {} instances closed abnormally: {}", n, r.calls, detail);
}

std::optional<double> flops_per_second(const result::Region& r) {
  if (!r.flops || !r.time_s || *r.time_s <= 0) return std::nullopt;
  return *r.flops / *r.time_s;
}

std::optional<double> total_bytes(const result::Region& r, const std::string& level) {
  auto it = r.bytes.find(level);
  if (it == r.bytes.end() || !it->second.read || !it->second.write) return std::nullopt;
  return *it->second.read + *it->second.write;
}

bool is_nanosecond_event(const std::string& event) {
  return event == "task-clock" || event == "cpu-clock";
}

}  // namespace roofprof::report
