// roofprof doctor: what this machine lets roofprof measure, why not, and how to fix it.
// Always exits 0: it reports, it does not fail.
#include <cstdio>

#include "cli/command.hpp"
#include "counters/capabilities.hpp"
#include "counters/doctor.hpp"

namespace roofprof::cli {
namespace {

int run() {
  const counters::Capabilities caps = counters::probe_capabilities();
  std::printf("roofprof doctor: what this machine lets roofprof measure\n\n");
  for (const counters::DoctorItem& item : counters::doctor_items(caps)) {
    std::printf("  %-4s %-20s %s\n", item.ok ? "ok" : "NO", item.label.c_str(), item.text.c_str());
    if (!item.fix.empty()) std::printf("  %-4s %-20s fix: %s\n", "", "", item.fix.c_str());
  }
  return 0;
}

}  // namespace

Runner setup_doctor(CLI::App&) {
  return [] { return run(); };
}

}  // namespace roofprof::cli
