#pragma once
// An MPI rank under --backend emul runs once, under valgrind, its regions marked by the
// in-process agent, which sees calls through the dynamic linker only. A function region with no
// call seen that the program's executable defines was found all the same: its sites are
// recorded, and its calls, W and Q are not measured (W and Q null, with why), rather than
// "never found" and 0 flops.
#include <string>

#include "probes/plan.hpp"
#include "result/result.hpp"

namespace roofprof::run {

// Returns the names of the regions so marked.
std::vector<std::string> mark_unseen_functions(const std::string& executable, const probes::Planner& planner,
                                               result::Run& res);

}  // namespace roofprof::run
