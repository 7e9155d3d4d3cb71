#pragma once
// The emulated run of `roofprof run --no-ptrace --backend emul` marks regions with the
// in-process agent too (emul::Options::agent): the same library and region patterns as the
// native run, so a region covers the same calls, and its regions named by the planner as the
// native run named them (preload::RegionNames).
#include "emul/emul.hpp"
#include "probes/plan.hpp"

namespace roofprof::run {

// `planner` must have been given the program's modules by the native run, and must outlive
// the result.
emul::Options::Agent emulation_agent(probes::Planner& planner);

}  // namespace roofprof::run
