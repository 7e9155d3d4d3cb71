#include "ceilings/team.hpp"

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

#include <cstring>
#include <string>

#include "common/error.hpp"

namespace roofprof::ceilings {
namespace {

void pin_self(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
    throw UserError("cannot pin a thread to CPU " + std::to_string(cpu));
}

// Spin briefly (the timed path), then sleep on the atomic so idle members leave the core free.
template <class T>
void wait_while_equal(const std::atomic<T>& a, T old) {
  for (int i = 0; i < 20000; ++i) {
    if (a.load(std::memory_order_acquire) != old) return;
    _mm_pause();
  }
  while (a.load(std::memory_order_acquire) == old) a.wait(old, std::memory_order_acquire);
}

}  // namespace

Team::Team(std::vector<int> cpus) : cpus_(std::move(cpus)), errors_(cpus_.size()) {
  if (cpus_.empty()) throw UserError("a thread team needs at least one CPU");
  saved_affinity_.resize(sizeof(cpu_set_t));
  pthread_getaffinity_np(pthread_self(), sizeof(cpu_set_t),
                         reinterpret_cast<cpu_set_t*>(saved_affinity_.data()));
  pin_self(cpus_[0]);
  for (int m = 1; m < size(); ++m) threads_.emplace_back([this, m] { worker(m); });
  try {
    run([](int) {});  // rethrows if a member could not pin itself
  } catch (...) {
    shutdown();
    throw;
  }
}

Team::~Team() { shutdown(); }

void Team::shutdown() {
  quit_.store(true, std::memory_order_release);
  job_generation_.fetch_add(1, std::memory_order_acq_rel);
  job_generation_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
  pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t),
                         reinterpret_cast<const cpu_set_t*>(saved_affinity_.data()));
}

void Team::run_member(int member) {
  try {
    (*job_)(member);
  } catch (...) {
    errors_[member] = std::current_exception();
  }
}

void Team::worker(int member) {
  try {
    pin_self(cpus_[member]);
  } catch (...) {
    errors_[member] = std::current_exception();
  }
  uint32_t seen = 0;
  for (;;) {
    wait_while_equal(job_generation_, seen);
    seen = job_generation_.load(std::memory_order_acquire);
    if (quit_.load(std::memory_order_acquire)) return;
    if (!errors_[member]) run_member(member);
    if (job_pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) job_pending_.notify_all();
  }
}

void Team::run(const std::function<void(int)>& job) {
  job_ = &job;
  job_pending_.store(size() - 1, std::memory_order_release);
  job_generation_.fetch_add(1, std::memory_order_acq_rel);
  job_generation_.notify_all();
  run_member(0);
  for (int left = job_pending_.load(std::memory_order_acquire); left != 0;
       left = job_pending_.load(std::memory_order_acquire))
    wait_while_equal(job_pending_, left);
  job_ = nullptr;
  for (auto& e : errors_)
    if (e) {
      auto first = e;
      for (auto& x : errors_) x = nullptr;
      std::rethrow_exception(first);
    }
}

void Team::barrier() {
  const uint32_t gen = barrier_generation_.load(std::memory_order_acquire);
  if (barrier_count_.fetch_add(1, std::memory_order_acq_rel) == size() - 1) {
    barrier_count_.store(0, std::memory_order_relaxed);
    barrier_generation_.fetch_add(1, std::memory_order_release);
  } else {
    while (barrier_generation_.load(std::memory_order_acquire) == gen) _mm_pause();
  }
}

}  // namespace roofprof::ceilings
