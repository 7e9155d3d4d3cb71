#include "ceilings/store.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ceilings/check.hpp"
#include "ceilings/json.hpp"
#include "ceilings/machine.hpp"
#include "ceilings/names.hpp"
#include "common/error.hpp"
#include "common/output_file.hpp"

namespace roofprof::ceilings {
namespace {

uint64_t fnv1a(const std::string& s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

bool has(const std::vector<std::string>& v, const char* s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Does a cached measurement answer this request?
bool covers(const MethodInfo& cached, const MeasureOptions& want) {
  if (want.mode == Mode::full && cached.mode != Mode::full) return false;
  return (!want.compute || has(cached.parts, "compute")) &&
         (!want.bandwidth || has(cached.parts, "bandwidth")) &&
         (!want.latency || has(cached.parts, "latency")) &&
         (!(want.bandwidth || want.latency) || has(cached.parts, "hierarchy"));
}

// Why `cached` does not belong to `now`, or "" if it does.
std::string staleness(const MachineId& cached, const MachineId& now) {
  if (cached.cpu_model != now.cpu_model) return "CPU model changed";
  if (cached.cores != now.cores)
    return "core count " + std::to_string(cached.cores) + " -> " + std::to_string(now.cores);
  if (cached.kernel != now.kernel) return "kernel " + cached.kernel + " -> " + now.kernel;
  if (cached.microcode != now.microcode)
    return "microcode " + cached.microcode + " -> " + now.microcode;
  return {};
}

}  // namespace

Ceilings load(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw UserError(path.string() + ": is a directory; give a ceilings file (written by `roofprof ceilings -o FILE`)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path.string() + ": cannot read the ceilings file");
  // Ceilings files are a few kB: read at most 64 MiB (a device such as /dev/zero never ends).
  constexpr size_t kLimit = size_t(64) << 20;
  std::string text;
  char buf[1 << 16];
  while (text.size() <= kLimit && in.read(buf, sizeof buf).gcount() > 0) text.append(buf, size_t(in.gcount()));
  if (text.size() > kLimit || text.find('\0') != std::string::npos)
    throw UserError(path.string() + ": not a ceilings file (not JSON text of at most 64 MiB)");
  return parse(text, path.string());
}


void save(const Ceilings& c, const std::filesystem::path& path) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  write_output_file(path.string(), to_json(c).dump(2) + "\n", "ceilings file");
}

std::filesystem::path cache_file(const std::filesystem::path& dir, const MachineId& id) {
  char name[64];
  std::snprintf(name, sizeof name, "ceilings-%016llx.json",
                static_cast<unsigned long long>(fnv1a(id.cpu_model + "\n" +
                                                      std::to_string(id.cores))));
  return dir / name;
}

Loaded load_or_measure(const CacheOptions& options) {
  auto warn = options.warn ? options.warn : [](const std::string& m) {
    std::fprintf(stderr, "roofprof: warning: %s\n", m.c_str());
  };
  const MachineId now = current_machine();
  const auto dir = options.dir.empty() ? default_cache_dir() : options.dir;
  Loaded out;
  if (dir.empty()) warn("neither XDG_CACHE_HOME nor HOME is set; ceilings will not be cached");
  else out.path = cache_file(dir, now);

  std::error_code ec;
  if (!out.path.empty() && !options.remeasure && std::filesystem::exists(out.path, ec)) {
    try {
      Ceilings cached = load(out.path);
      const std::string why = staleness(cached.machine, now);
      if (!why.empty()) {
        warn("cached ceilings " + out.path.string() + " are stale (" + why + "); measuring again");
      } else if (covers(cached.method, options.measure)) {
        flag_inconsistent(cached);  // a file from before the check, or edited: its users say so
        out.ceilings = std::move(cached);
        out.from_cache = true;
        return out;
      }
    } catch (const UserError& e) {
      warn(std::string("cached ceilings are unreadable (") + e.what() + "); measuring again");
    }
  }

  out.ceilings = measure(options.measure);
  if (!out.path.empty()) {
    try {
      save(out.ceilings, out.path);
    } catch (const UserError& e) {
      warn(std::string(e.what()) + "; the ceilings are not cached");
    }
  }
  return out;
}

}  // namespace roofprof::ceilings
