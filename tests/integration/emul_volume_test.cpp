// Issue 16 scope 4: the emulated run's temporary files stay small however many calls the
// program makes. The tool writes about 70 bytes per boundary (136 MB for the 10^6 calls
// below); roofprof reads the files every 50 ms and gives what it has read back to the file
// system, so the disk they take is what the tool wrote since the last read.
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

TEST(EmulVolume, AMillionCallsKeepTheTemporaryFilesUnderFiftyMegabytes) {
  Sandbox sb;
  const fs::path tmp = sb.path("tmp");
  fs::create_directories(tmp);
  std::atomic<bool> done{false};
  std::atomic<uint64_t> peak{0};
  std::thread sampler([&] {
    while (!done) {
      peak = std::max<uint64_t>(peak, disk_bytes(tmp));
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
  ASSERT_EQ(r.exit_code(), 0) << r.diag();
  json reg = region(load_result(r), "pre_work");
  EXPECT_EQ(calls(reg), 1'000'000);
  EXPECT_DOUBLE_EQ(reg["flops"].get<double>(), 100.0 * 1'000'000) << reg.dump();  // pre_work(x, 100): 100 adds
  EXPECT_LT(peak.load(), 50u << 20) << "peak disk use of the temporary files: " << peak.load() << " bytes";
  EXPECT_GT(peak.load(), 0u);  // the sampler saw the files
  std::cerr << "peak disk use of the temporary files: " << (peak.load() >> 10) << " KiB\n";
}

}  // namespace
}  // namespace it
