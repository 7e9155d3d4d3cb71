#include "cli/run_observer.hpp"

namespace roofprof::cli {

void RunObserver::ready() {
  if (announced_) return;  // once per run, whatever the mechanisms and the runs of --repeat
  announced_ = true;
  for (const auto& line : announcement_) std::fprintf(out_, "roofprof: %s\n", line.c_str());
}

void RunObserver::before_outermost_entry(pid_t tid) {
  if (evictor_) evictor_->evict(last_cpu_of(tid));
}

}  // namespace roofprof::cli
