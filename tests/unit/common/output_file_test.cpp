// Files roofprof writes where the user said: devices and pipes are written in place (never
// renamed over or kept as .old), symlinks keep pointing where they did and are never written
// through to a file, a replaced file keeps its mode, unwritable places are
// refused before any work, and a failed write leaves the text in a fallback file.
#include "common/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <thread>

#include "common/error.hpp"

namespace roofprof {
namespace {

namespace fs = std::filesystem;

class OutputFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "roofprof-output-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static std::string error_of(const std::function<void()>& f) {
    try {
      f();
    } catch (const UserError& e) {
      return e.what();
    }
    return "(no error)";
  }
  // A character device node like /dev/null (major 1, minor 3), made here so that a broken
  // build can never replace the real one. Needs CAP_MKNOD (the tests run as root).
  std::string null_device() {
    const std::string p = path("null");
    if (::mknod(p.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) return "";
    return p;
  }
  // Runs `body` in a child with a private mount namespace (mounts vanish with it); the child's
  // exit status: 0 when `body` returned true.
  static int in_private_mounts(const std::function<bool()>& body) {
    pid_t pid = ::fork();
    if (pid == 0) {
      if (::unshare(CLONE_NEWNS) != 0 || ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(77);
      _exit(body() ? 0 : 1);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }

  fs::path dir_;
};

TEST_F(OutputFile, CharacterDeviceIsWrittenInPlaceNeverRenamed) {
  const std::string dev = null_device();
  if (dev.empty()) GTEST_SKIP() << "mknod not permitted here";
  OutputTarget t = check_output(dev, "result file");
  EXPECT_EQ(t.kind, OutputKind::Special);
  write_output(t, "{\"x\": 1}\n", "result file", KeepPrevious::yes);
  struct stat st {};
  ASSERT_EQ(::stat(dev.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced by a regular file";
  EXPECT_FALSE(fs::exists(dev + ".old")) << "a device must not be moved aside";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1) << "no temporary file left";
}

TEST_F(OutputFile, SymlinkToADeviceStaysASymlinkToIt) {
  const std::string dev = null_device();
  if (dev.empty()) GTEST_SKIP() << "mknod not permitted here";
  fs::create_symlink(dev, path("out"));
  write_output_file(path("out"), "text\n", "result file", KeepPrevious::yes);
  EXPECT_TRUE(fs::is_symlink(path("out")));
  EXPECT_EQ(fs::read_symlink(path("out")).string(), dev);
  EXPECT_TRUE(fs::is_character_file(dev));
  EXPECT_FALSE(fs::exists(path("out.old")));
}

TEST_F(OutputFile, FifoReceivesTheTextAndStaysAFifo) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = slurp(path("pipe")); });
  write_output_file(path("pipe"), "through the pipe\n", "result file", KeepPrevious::yes);
  reader.join();
  EXPECT_EQ(received, "through the pipe\n");
  EXPECT_TRUE(fs::is_fifo(path("pipe")));
}

// `ln -s /etc/passwd l.json; roofprof run -o l.json` once replaced /etc/passwd. A
// link to a file is refused, and the file it points to is left as it was.
TEST_F(OutputFile, SymlinkToARegularFileIsRefusedAndTheFileKept) {
  fs::create_directory(path("real"));
  std::ofstream(path("real/r.json")) << "first\n";
  fs::create_symlink("real/r.json", path("link.json"));
  const std::string msg = error_of([&] { write_output_file(path("link.json"), "second\n", "result file"); });
  EXPECT_NE(msg.find("cannot write result file '" + path("link.json") + "': it is a symbolic link"), std::string::npos)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(slurp(path("real/r.json")), "first\n");
  EXPECT_TRUE(fs::is_symlink(path("link.json")));
  EXPECT_FALSE(fs::exists(path("real/r.json.old")));
}

// A link planted between the check and the write (the name was free or a file when checked) is
// renamed over, never written through.
TEST_F(OutputFile, LinkPlantedAfterTheCheckIsReplacedNotFollowed) {
  std::ofstream(path("victim")) << "victim\n";
  const OutputTarget t = check_output(path("r.json"), "result file");
  fs::create_symlink(path("victim"), path("r.json"));
  write_output(t, "result\n", "result file", KeepPrevious::yes);
  EXPECT_EQ(slurp(path("victim")), "victim\n");
  EXPECT_FALSE(fs::is_symlink(path("r.json")));
  EXPECT_EQ(slurp(path("r.json")), "result\n");
  EXPECT_FALSE(fs::exists(path("r.json.old"))) << "a link is not a previous result";
}

// A FIFO checked, then replaced by a file before the write: the file is not written over; the
// text goes to a fallback file, as any failed write's.
TEST_F(OutputFile, FifoReplacedByAFileAfterTheCheckIsNotWrittenOver) {
  ASSERT_EQ(::mkfifo(path("pipe").c_str(), 0600), 0);
  const OutputTarget t = check_output(path("pipe"), "result file");
  ASSERT_EQ(t.kind, OutputKind::Special);
  fs::remove(path("pipe"));
  std::ofstream(path("pipe")) << "someone's file\n";
  const std::string msg = error_of([&] { write_output(t, "result\n", "result file"); });
  EXPECT_NE(msg.find("no longer a device or FIFO"), std::string::npos) << msg;
  EXPECT_EQ(slurp(path("pipe")), "someone's file\n");
  const size_t at = msg.find("saved to '");
  ASSERT_NE(at, std::string::npos) << msg;
  const std::string saved = msg.substr(at + 10, msg.find('\'', at + 10) - at - 10);
  EXPECT_EQ(slurp(saved), "result\n");
  fs::remove(saved);
}

TEST_F(OutputFile, ReplacedFileKeepsItsMode) {
  for (mode_t mode : {mode_t(0600), mode_t(0640), mode_t(0604)}) {
    SCOPED_TRACE(mode);
    std::ofstream(path("r.json")) << "old\n";
    ASSERT_EQ(::chmod(path("r.json").c_str(), mode), 0);
    write_output_file(path("r.json"), "new\n", "result file", KeepPrevious::yes);
    struct stat st {};
    ASSERT_EQ(::stat(path("r.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, mode);
    EXPECT_EQ(slurp(path("r.json")), "new\n");
    EXPECT_EQ(slurp(path("r.json.old")), "old\n");
  }
}

TEST_F(OutputFile, ReplacedFileKeepsItsOwnerWhenRootWrites) {
  if (::geteuid() != 0) GTEST_SKIP() << "only root can give a file to another user";
  std::ofstream(path("r.json")) << "old\n";
  ASSERT_EQ(::chown(path("r.json").c_str(), 65534, 65534), 0);
  write_output_file(path("r.json"), "new\n", "result file");
  struct stat st {};
  ASSERT_EQ(::stat(path("r.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
}

// Runs at once with the default name each get a name of their own.
TEST_F(OutputFile, HeldDefaultNameIsNumberedAndFreedWhenTheClaimEnds) {
  std::ofstream(path("roofprof.json")) << "an earlier run\n";
  std::optional<OutputTarget> first = claim_output(path("roofprof.json"), "result file");
  EXPECT_EQ(first->path, path("roofprof.json")) << "an earlier run's file is no claim";
  const OutputTarget second = claim_output(path("roofprof.json"), "result file");
  EXPECT_EQ(second.path, path("roofprof.1.json"));
  const OutputTarget third = claim_output(path("roofprof.json"), "result file");
  EXPECT_EQ(third.path, path("roofprof.2.json"));
  first.reset();
  EXPECT_FALSE(fs::exists(path(".roofprof.json.lock"))) << "the claim's lock file is removed with it";
  EXPECT_EQ(claim_output(path("roofprof.json"), "result file").path, path("roofprof.json"));
  EXPECT_EQ(claim_output("roofprof-survey.json", "result file").path, "roofprof-survey.json") << "a bare name";
}

TEST_F(OutputFile, ClaimHeldInAnotherProcessIsSkipped) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    OutputTarget t = claim_output(path("r.json"), "result file");
    char c = t.path == path("r.json") ? 'y' : 'n';
    (void)!::write(ready[1], &c, 1);
    ::pause();
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_EQ(c, 'y');
  EXPECT_EQ(claim_output(path("r.json"), "result file").path, path("r.1.json"));
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_EQ(claim_output(path("r.json"), "result file").path, path("r.json")) << "a dead process holds nothing";
}

TEST_F(OutputFile, StreamNamesAreTheDescriptors) {
  for (const char* p : {"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}) {
    OutputTarget t = check_output(p, "SVG file");
    EXPECT_EQ(t.kind, OutputKind::Stream) << p;
    EXPECT_EQ(t.fd, 1) << p;
  }
  EXPECT_EQ(check_output("/dev/stderr", "SVG file").fd, 2);
}

TEST_F(OutputFile, StdoutIsWrittenNotRenamedOver) {
  // In a child whose stdout is a file here: "/dev/stdout" writes to that descriptor.
  const std::string captured = path("captured");
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(captured.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    write_output_file("/dev/stdout", "on stdout\n", "result file", KeepPrevious::yes);
    _exit(0);
  }
  int st = 0;
  ::waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  EXPECT_EQ(slurp(captured), "on stdout\n");
  EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
}

TEST_F(OutputFile, PlacesThatCannotTakeAFileAreRefusedWithOneLine) {
  std::ofstream(path("plainfile")) << "x";
  fs::create_directory(path("d"));
  fs::create_symlink(path("nowhere/x"), path("dangling"));
  struct Case {
    std::string path, says;
  } cases[] = {
      {path("d"), "is a directory"},
      {path("plainfile/r.json"), "is not a directory"},
      {path("no/such/dir/r.json"), "does not exist"},
      {path("dangling"), "symbolic link to a missing file"},
  };
  for (const auto& c : cases) {
    std::string msg = error_of([&] { check_output(c.path, "result file"); });
    EXPECT_NE(msg.find("cannot write result file '" + c.path + "'"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.says), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  if (::mknod(path("blk").c_str(), S_IFBLK | 0600, makedev(7, 200)) == 0) {
    EXPECT_NE(error_of([&] { check_output(path("blk"), "result file"); }).find("block device"), std::string::npos);
  }
}

TEST_F(OutputFile, ReadOnlyFileSystemIsFoundBeforeAnyWork) {
  const std::string ro = path("ro");
  fs::create_directory(ro);
  int rc = in_private_mounts([&] {
    if (::mount("tmpfs", ro.c_str(), "tmpfs", MS_RDONLY, "size=64k") != 0) return false;
    std::string msg = error_of([&] { check_output(ro + "/r.json", "result file"); });
    return msg.find("is not writable (Read-only file system)") != std::string::npos;
  });
  if (rc == 77) GTEST_SKIP() << "no private mount namespace here";
  EXPECT_EQ(rc, 0);
}

TEST_F(OutputFile, FullFileSystemLeavesTheTextInAFallbackFile) {
  const std::string small = path("small");
  fs::create_directory(small);
  const std::string text(64 * 1024, 'x');
  int rc = in_private_mounts([&] {
    if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=8k") != 0) return false;
    if (::chdir(dir_.c_str()) != 0) return false;
    OutputTarget t = check_output(small + "/r.json", "result file");  // fits: nothing written yet
    std::string msg = error_of([&] { write_output(t, text, "result file", KeepPrevious::yes); });
    const std::string saved = dir_.string() + "/roofprof-fallback-" + std::to_string(getpid()) + "-r.json";
    return msg.find("No space left on device") != std::string::npos &&
           msg.find("saved to '" + saved + "'") != std::string::npos && slurp(saved) == text &&
           !fs::exists(small + "/r.json") && fs::is_empty(small);
  });
  if (rc == 77) GTEST_SKIP() << "no private mount namespace here";
  EXPECT_EQ(rc, 0);
}

TEST_F(OutputFile, FailingDeviceLeavesTheTextInAFallbackFile) {
  // /dev/full answers every write with ENOSPC.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_);
  std::string msg = error_of([&] { write_output_file("/dev/full", "measured\n", "result file"); });
  fs::current_path(cwd);
  const std::string saved = dir_.string() + "/roofprof-fallback-" + std::to_string(getpid()) + "-full";
  EXPECT_NE(msg.find("cannot write result file '/dev/full' (No space left on device)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("saved to '" + saved + "' instead"), std::string::npos) << msg;
  EXPECT_EQ(slurp(saved), "measured\n");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));
}

}  // namespace
}  // namespace roofprof
