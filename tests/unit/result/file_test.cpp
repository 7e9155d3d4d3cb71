#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.hpp"
#include "result/result.hpp"
#include "tests/unit/result/sample_run.hpp"

namespace roofprof::result {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class ResultFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "roofprof-result-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir_)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void spit(const std::string& p, const std::string& text) { std::ofstream(p) << text; }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }

  fs::path dir_;
};

TEST_F(ResultFile, WriteThenReadRoundTrips) {
  result::Run run = samples::sample_run();
  write_atomic(run, path("r.json"));
  EXPECT_EQ(read_file(path("r.json")), run);
  EXPECT_EQ(entries(), std::vector<std::string>{"r.json"});
}

TEST_F(ResultFile, FileListsMembersInSchemaOrder) {
  write_atomic(samples::sample_run(), path("r.json"));
  std::string text = slurp(path("r.json"));
  EXPECT_EQ(text.rfind("{\n  \"schema\": 1,\n  \"tool\"", 0), 0u) << text.substr(0, 80);
  EXPECT_EQ(text.back(), '\n');
}

TEST_F(ResultFile, ExistingFileIsKeptAsOldAndNoTemporaryRemains) {
  result::Run first = samples::sample_run();
  first.tool_version = "first";
  result::Run second = samples::sample_run();
  second.tool_version = "second";
  result::Run third = samples::sample_run();
  third.tool_version = "third";

  write_atomic(first, path("r.json"));
  write_atomic(second, path("r.json"));
  EXPECT_EQ(read_file(path("r.json")).tool_version, "second");
  EXPECT_EQ(read_file(path("r.json.old")).tool_version, "first");
  EXPECT_EQ(entries(), (std::vector<std::string>{"r.json", "r.json.old"}));

  write_atomic(third, path("r.json"));  // replaces an existing .old
  EXPECT_EQ(read_file(path("r.json")).tool_version, "third");
  EXPECT_EQ(read_file(path("r.json.old")).tool_version, "second");
  EXPECT_EQ(entries(), (std::vector<std::string>{"r.json", "r.json.old"}));
}

TEST_F(ResultFile, RelativePathWithoutDirectory) {
  fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  write_atomic(samples::sample_run(), "plain.json");
  fs::current_path(cwd);
  EXPECT_EQ(entries(), std::vector<std::string>{"plain.json"});
}

TEST_F(ResultFile, UnwritableDirectoryIsAUserError) {
  // Tests run as root, so chmod would not stop us: use paths no one can create.
  spit(path("plainfile"), "x");
  std::string msg =
      error_of([&] { write_atomic(samples::sample_run(), path("plainfile/r.json")); });
  EXPECT_NE(msg.find("cannot write result file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("is not a directory"), std::string::npos) << msg;
  EXPECT_NE(msg.find("-o"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;

  msg = error_of([&] { write_atomic(samples::sample_run(), path("no/such/dir/r.json")); });
  EXPECT_NE(msg.find("does not exist"), std::string::npos) << msg;
  EXPECT_EQ(entries(), std::vector<std::string>{"plainfile"});
}

TEST_F(ResultFile, DirectoryAsTargetIsAUserError) {
  fs::create_directory(path("d"));
  std::string msg = error_of([&] { write_atomic(samples::sample_run(), path("d")); });
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
  EXPECT_EQ(entries(), std::vector<std::string>{"d"});
}

TEST_F(ResultFile, TruncatedFileIsAUserErrorNamingIt) {
  write_atomic(samples::sample_run(), path("r.json"));
  std::string text = slurp(path("r.json"));
  spit(path("cut.json"), text.substr(0, text.size() / 2));
  std::string msg = error_of([&] { read_file(path("cut.json")); });
  EXPECT_NE(msg.find(path("cut.json")), std::string::npos) << msg;
  EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
}

TEST_F(ResultFile, BadFilesAreUserErrors) {
  spit(path("empty.json"), "");
  EXPECT_NE(error_of([&] { read_file(path("empty.json")); }).find("is empty"), std::string::npos);

  spit(path("garbage.json"), "{\"schema\": 1,, }");
  EXPECT_NE(
      error_of([&] { read_file(path("garbage.json")); }).find("not valid JSON (error at byte"),
      std::string::npos);

  std::string msg = error_of([&] { read_file(path("missing.json")); });
  EXPECT_NE(msg.find("cannot read result file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("No such file"), std::string::npos) << msg;

  EXPECT_NE(error_of([&] { read_file(dir_.string()); }).find("Is a directory"), std::string::npos);

  nlohmann::json j = to_json(samples::sample_run());
  j["schema"] = 99;
  spit(path("new.json"), j.dump());
  msg = error_of([&] { read_file(path("new.json")); });
  EXPECT_EQ(msg.rfind("result file '" + path("new.json") + "': result schema 99 is newer", 0), 0u)
      << msg;
}

TEST(Host, DescribesThisMachine) {
  Host h = describe_host();
  EXPECT_FALSE(h.hostname.empty());
  EXPECT_EQ(h.kernel.rfind("Linux ", 0), 0u) << h.kernel;
  ASSERT_TRUE(h.logical_cpus.has_value());
  EXPECT_GE(*h.logical_cpus, 1);
  EXPECT_EQ(h.pmu, "");
  EXPECT_FALSE(h.cpu_vendor.empty());  // x86-64 Linux always has vendor_id
}

}  // namespace
}  // namespace roofprof::result
