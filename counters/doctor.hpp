#pragma once
// `roofprof doctor` content: one item per capability, with the command that fixes what is
// missing. Built from probed Capabilities (pure, testable); cli/cmds/doctor.cpp prints it.
#include <string>
#include <vector>

#include "counters/capabilities.hpp"

namespace roofprof::counters {

struct DoctorItem {
  std::string label;  // "FP counters"
  bool ok = true;     // false: a capability is missing
  std::string text;   // what was found, and why not
  std::string fix;    // the command or action that fixes it; "" when none is needed or possible
};

std::vector<DoctorItem> doctor_items(const Capabilities& caps);

}  // namespace roofprof::counters
