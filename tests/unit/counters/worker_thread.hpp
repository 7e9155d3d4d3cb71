#pragma once
// A real thread for end-to-end counter tests: it publishes its tid, waits until the test has
// opened its counters, runs a job, reports back and then parks until told to exit.
#include <sys/mman.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <functional>
#include <future>
#include <thread>

namespace roofprof::counters::testing {

class WorkerThread {
 public:
  explicit WorkerThread(std::function<void()> job) : job_(std::move(job)) {
    thread_ = std::thread([this] {
      tid_promise_.set_value(::gettid());
      go_.get_future().wait();
      job_();
      done_.set_value();
      exit_.get_future().wait();
    });
    tid_ = tid_promise_.get_future().get();
  }
  ~WorkerThread() { finish(); }
  pid_t tid() const { return tid_; }
  void run_job() {  // starts the job and waits for it to end
    if (job_started_) return;
    job_started_ = true;
    go_.set_value();
    done_.get_future().wait();
  }
  void finish() {  // lets the thread exit and joins it
    if (!thread_.joinable()) return;
    run_job();
    if (!started_exit_) exit_.set_value();
    started_exit_ = true;
    thread_.join();
  }

 private:
  std::function<void()> job_;
  std::promise<pid_t> tid_promise_;
  std::promise<void> go_, done_, exit_;
  bool job_started_ = false;
  bool started_exit_ = false;
  pid_t tid_ = 0;
  std::thread thread_;
};

// Maps `pages` fresh anonymous pages (no transparent huge pages), writes one byte to each,
// then unmaps them: at least `pages` page faults in the calling thread.
inline void touch_fresh_pages(size_t pages) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t len = pages * page;
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) std::abort();
  ::madvise(p, len, MADV_NOHUGEPAGE);
  volatile char* c = static_cast<volatile char*>(p);
  for (size_t i = 0; i < pages; ++i) c[i * page] = 1;
  ::munmap(p, len);
}

}  // namespace roofprof::counters::testing
