#include "survey/run.hpp"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>

#include "common/clock.hpp"
#include "common/program.hpp"
#include "supervisor/child.hpp"
#include "supervisor/signals.hpp"

namespace roofprof::survey {

SampledRun sample_program(const std::vector<std::string>& argv, unsigned rate_hz, bool copy_stacks) {
  supervisor::Launch launch;
  launch.path = runnable_program(argv.at(0));
  launch.argv = argv;
  launch.stop_before_exec = true;  // stopped until the event is open: sampling starts at its exec
  supervisor::InterruptPolicy policy(false);
  const pid_t pid = supervisor::start(launch);
  SampledRun out;
  out.samples.period_s = 1.0 / rate_hz;
  std::optional<Sampler> sampler;
  try {
    sampler.emplace(pid, rate_hz, copy_stacks);
  } catch (...) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    throw;
  }
  out.samples.user_only = sampler->user_only();
  out.samples.stacks_copied = copy_stacks;
  const int64_t start_ns = monotonic_ns();
  ::kill(pid, SIGCONT);
  supervisor::Child child(pid, policy);
  // The ring holds about a second of samples at 1 kHz; reading it every 10 ms costs little.
  while (!child.wait(std::chrono::milliseconds(10))) sampler->drain(out.samples);
  out.wall_time_s = double(monotonic_ns() - start_ns) * 1e-9;
  sampler->drain(out.samples, true);  // and unwind what is left
  const int st = child.status();
  out.ending = supervisor::Ending::of_wait_status(st);
  out.complete = !policy.interrupted() && !child.killed();
  return out;
}

}  // namespace roofprof::survey
