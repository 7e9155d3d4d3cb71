#pragma once
// A team of threads pinned one per CPU. The calling thread is member 0 (pinned to cpus[0]
// while the team lives, its old affinity restored afterwards), so no core is lost to a waiting
// main thread. Jobs run on every member; barrier() is a spin barrier so that timed sections
// start together (the synchronised start of the seed dissertation).
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace roofprof::ceilings {

class Team {
 public:
  explicit Team(std::vector<int> cpus);  // throws UserError if a thread cannot be pinned
  ~Team();
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const { return int(cpus_.size()); }
  const std::vector<int>& cpus() const { return cpus_; }

  // Runs job(member) on every member and returns when all are done; rethrows the first
  // exception a member threw. A job that throws must not be between barriers.
  void run(const std::function<void(int)>& job);

  // Spin barrier among all members; call only from inside a job.
  void barrier();

 private:
  void worker(int member);
  void run_member(int member);
  void shutdown();  // stops and joins the workers, restores the caller's affinity

  std::vector<int> cpus_;
  std::vector<std::thread> threads_;
  std::vector<std::exception_ptr> errors_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<uint32_t> job_generation_{0};
  std::atomic<int> job_pending_{0};
  std::atomic<bool> quit_{false};
  std::atomic<int> barrier_count_{0};
  std::atomic<uint32_t> barrier_generation_{0};
  std::vector<uint8_t> saved_affinity_;  // cpu_set_t of the calling thread
};

}  // namespace roofprof::ceilings
