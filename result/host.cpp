// describe_host(): what machine a result was measured on.
#include "result/host.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "result/result.hpp"

namespace roofprof::result {
namespace {

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::string read_text(const char* path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

CpuInfo parse_cpuinfo(std::string_view text) {
  CpuInfo info;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view{} : text.substr(eol + 1);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (key == "model name" && info.model.empty()) info.model = value;
    if (key == "vendor_id" && info.vendor.empty()) info.vendor = value;
  }
  return info;
}

Host describe_host() {
  Host h;
  struct utsname u {};
  if (uname(&u) == 0) {
    h.hostname = u.nodename;
    h.kernel = std::string(u.sysname) + " " + u.release + " " + u.machine;
  }
  CpuInfo cpu = parse_cpuinfo(read_text("/proc/cpuinfo"));
  h.cpu_model = cpu.model;
  h.cpu_vendor = cpu.vendor;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n > 0) h.logical_cpus = int(n);
  return h;
}

}  // namespace roofprof::result
