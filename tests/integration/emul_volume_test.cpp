// The emulated run's temporary files stay small however many calls the
// program makes. The tool writes about 70 bytes per boundary (136 MB for the 10^6 calls
// below); roofprof reads the files every 50 ms and gives what it has read back to the file
// system, so the disk they take is what the tool wrote since the last read.
#include <signal.h>
#include <sys/stat.h>

#include <atomic>
#include <thread>

#include "harness.hpp"

namespace it {
namespace {

// The disk blocks of every file under `dir` (files come and go while this looks).
uint64_t disk_bytes(const fs::path& dir) {
  uint64_t bytes = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) bytes += uint64_t(st.st_blocks) * 512;
  }
  return bytes;
}

// The roofprof process running in `dir` (its working directory), or 0.
pid_t roofprof_in(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::error_code ec2;
    if (fs::read_symlink(e.path() / "cwd", ec2) == dir &&
        fs::read_symlink(e.path() / "exe", ec2).filename() == "roofprof")
      return pid_t(std::stol(name));
  }
  return 0;
}

// A million calls under emulation; `starve_reader`: roofprof is stopped for 2 s once the
// emulated run has written its first megabytes, as a loaded machine can starve it.
uint64_t peak_of_a_million_calls(bool starve_reader) {
  Sandbox sb;
  const fs::path tmp = sb.path("tmp");
  fs::create_directories(tmp);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> peak{0};
  std::thread sampler([&] {
    bool starved = !starve_reader;
    while (!done) {
      uint64_t now = disk_bytes(tmp);
      peak = std::max<uint64_t>(peak, now);
      if (!starved && now > (4u << 20))
        if (pid_t p = roofprof_in(sb.work())) {
          starved = true;
          ::kill(p, SIGSTOP);
          for (int i = 0; i < 100 && !done; ++i) {
            peak = std::max<uint64_t>(peak, disk_bytes(tmp));
            std::this_thread::sleep_for(20ms);
          }
          ::kill(p, SIGCONT);
        }
      std::this_thread::sleep_for(20ms);
    }
  });
  RunOptions ro;
  ro.env = {{"TMPDIR", tmp.string()}};
  ro.timeout = 300s;
  auto r = sb.roofprof({"run", "--backend", "emul", "--no-cache-sim", "-q", "--region", "pre_work", "--",
                        fixture("pre_app"), "calls", "1000000"},
                       ro);
  done = true;
  sampler.join();
  EXPECT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "pre_work");
  EXPECT_EQ(calls(reg), 1'000'000);
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 100.0 * 1'000'000) << reg.dump();  // pre_work(x, 100): 100 adds
  EXPECT_GT(peak.load(), 0u);  // the sampler saw the files
  std::cerr << "peak disk use of the temporary files: " << (peak.load() >> 10) << " KiB\n";
  return peak.load();
}

TEST(EmulVolume, AMillionCallsKeepTheTemporaryFilesUnderFiftyMegabytes) {
  EXPECT_LT(peak_of_a_million_calls(false), 50u << 20);
}

// The tool waits for a reader that has fallen behind (rp_out.c): 2 s of a stopped roofprof
// would otherwise leave about 70 MB of unread events.
TEST(EmulVolume, AStarvedReaderIsWaitedFor) {
  EXPECT_LT(peak_of_a_million_calls(true), 50u << 20);
}

}  // namespace
}  // namespace it
