// roofprof doctor: what this machine lets roofprof measure, why not, and how to fix it.
// Exits 0: it reports, it does not fail (a bad user event set or --event-dir is a UserError, exit 2).
#include <cstdio>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "counters/capabilities.hpp"
#include "counters/doctor.hpp"

namespace roofprof::cli {
namespace {

int run(const std::string& event_dir) {
  const counters::Capabilities caps = counters::probe_capabilities(counters::catalog_with_user_sets(event_dir));
  std::printf("roofprof doctor: what this machine lets roofprof measure\n\n");
  for (const counters::DoctorItem& item : counters::doctor_items(caps)) {
    std::printf("  %-4s %-20s %s\n", item.ok ? "ok" : "NO", item.label.c_str(), item.text.c_str());
    if (!item.fix.empty()) std::printf("  %-4s %-20s fix: %s\n", "", "", item.fix.c_str());
  }
  return 0;
}

}  // namespace

Runner setup_doctor(CLI::App& sub) {
  auto event_dir = std::make_shared<std::string>();
  sub.add_option("--event-dir", *event_dir,
                 "directory of event-set files adding or overriding hardware event sets (besides "
                 "$XDG_CONFIG_HOME/roofprof/events or ~/.config/roofprof/events)");
  return [event_dir] { return run(*event_dir); };
}

}  // namespace roofprof::cli
