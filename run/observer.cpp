#include "run/observer.hpp"

namespace roofprof::run {

void Observer::ready() {
  if (announced_) return;  // once per run, whatever the mechanisms and the runs of --repeat
  announced_ = true;
  for (const auto& line : announcement_) std::fprintf(out_, "roofprof: %s\n", line.c_str());
}

void Observer::before_outermost_entry(pid_t tid) {
  if (evictor_) evictor_->evict(last_cpu_of(tid));
}

}  // namespace roofprof::run
