// read_files: many result files read on every core, in the order given; the first bad file in
// that order is the error.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

namespace fs = std::filesystem;

struct Dir {
  fs::path path = fs::temp_directory_path() / ("roofprof-read-files-" + std::to_string(::getpid()));
  Dir() { fs::create_directories(path); }
  ~Dir() { fs::remove_all(path); }
  std::string file(int i) const { return (path / ("r" + std::to_string(i) + ".json")).string(); }
};

TEST(ReadFiles, KeepsTheOrderOfThePaths) {
  Dir d;
  std::vector<std::string> paths;
  for (int i = 0; i < 40; ++i) {
    result::Run run = samples::sample_run();
    run.job = Job{"slurm", i, 40, "9"};
    write_atomic(run, d.file(i));
    paths.push_back(d.file(i));
  }
  std::vector<result::Run> runs = read_files(paths);
  ASSERT_EQ(runs.size(), 40u);
  for (int i = 0; i < 40; ++i) EXPECT_EQ(runs[size_t(i)].job->rank, i);
}

TEST(ReadFiles, TheFirstBadFileInOrderIsTheError) {
  Dir d;
  std::vector<std::string> paths;
  for (int i = 0; i < 20; ++i) {
    if (i == 7 || i == 15) std::ofstream(d.file(i)) << "{not json";
    else write_atomic(samples::sample_run(), d.file(i));
    paths.push_back(d.file(i));
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    try {
      read_files(paths);
      FAIL() << "bad files accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(d.file(7)), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace roofprof::result
