#include "run/unseen_functions.hpp"

#include <fmt/format.h>

#include "common/strings.hpp"
#include "symbolizer/elf_file.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::run {

std::vector<std::string> mark_unseen_functions(const std::string& executable, const probes::Planner& planner,
                                               result::Run& res) {
  std::vector<std::string> marked;
  std::shared_ptr<symbolizer::ElfFile> exe;
  try {
    exe = symbolizer::ElfFile::open(executable);
  } catch (const std::exception&) {
    return marked;  // not an ELF file roofprof reads: nothing to say about its functions
  }
  for (auto& r : res.regions) {
    if (r.calls != 0 || r.kind != "function") continue;
    const probes::RegionInfo* info = nullptr;
    for (const auto& i : planner.regions())
      if (i.name == r.name) info = &i;
    if (!info) continue;
    auto found = symbolizer::match_functions(info->spec, {exe.get()});
    if (found.empty()) continue;
    r.locations.clear();
    for (const auto& f : found)
      for (const auto& s : f.sites) r.locations.push_back(result::Site{s.module, s.address, s.symbol, "entry"});
    r.flops.reset();
    r.instructions.reset();
    r.flops_by_class.clear();
    r.bytes.clear();
    std::erase_if(r.sources, [](const auto& kv) {
      return kv.first == "flops" || kv.first == "instructions" || kv.first.rfind("bytes", 0) == 0;
    });
    r.calls_approximate.push_back(fmt::format(
        "{} is a function of {} itself, whose calls the in-process agent that marks an emulated rank's regions "
        "does not see (it sees calls through the dynamic linker only): its calls, flops and bytes were not measured "
        "(null); run the program outside the launcher with --backend emul, or the job with --backend time for its "
        "calls and time",
        r.name, std::string(path_basename(executable))));
    marked.push_back(r.name);
  }
  return marked;
}

}  // namespace roofprof::run
