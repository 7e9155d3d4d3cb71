#include "result/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "common/error.hpp"

namespace roofprof::result {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

// A failed system call inside replace_file_atomically, caught there and turned into a UserError.
struct SystemFailure {
  int err;
};
[[noreturn]] void fail_with_errno() { throw SystemFailure{errno}; }

std::string directory_of(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// Creates a new, empty, uniquely named file next to `path`. Mode 0666 minus the umask, as for
// any file the user creates.
std::pair<int, std::string> create_temporary(const std::string& path, const char* what) {
  static std::atomic<unsigned> counter{0};
  const std::string dir = directory_of(path);
  const std::string base = std::filesystem::path(path).filename().string();
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = dir + "/." + base + ".tmp." + std::to_string(getpid()) + "." +
                      std::to_string(counter.fetch_add(1));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return {fd, tmp};
    if (errno != EEXIST)
      throw UserError(std::string("cannot write ") + what + " '" + path + "': directory '" + dir +
                      "' is not writable (" + errno_text(errno) +
                      "); choose a writable location with -o");
  }
  throw UserError(std::string("cannot write ") + what + " '" + path +
                  "': could not create a temporary file in '" + dir + "'");
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_with_errno();
    p += n;
    left -= size_t(n);
  }
  if (::fsync(fd) != 0) fail_with_errno();
}

// `path` (if it exists) also becomes `path.old`; `path` itself stays in place.
void keep_previous(const std::string& path) {
  const std::string old = path + ".old";
  if (::unlink(old.c_str()) != 0 && errno != ENOENT) fail_with_errno();
  if (::link(path.c_str(), old.c_str()) == 0) return;
  // No hard links on this file system: move it instead (brief window without `path`).
  if (::rename(path.c_str(), old.c_str()) != 0) fail_with_errno();
}

void sync_directory(const std::string& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // best effort: the data itself is already on disk
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void replace_file_atomically(const std::string& path, const std::string& text, const char* what) {
  if (path.empty()) throw UserError(std::string("no file name given for the ") + what);
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    throw UserError(std::string("cannot write ") + what + " '" + path +
                    "': it is a directory; give a file name");

  auto [fd, tmp] = create_temporary(path, what);
  const char* step = "write";
  try {
    write_all(fd, text);
    ::close(fd);
    fd = -1;
    step = "keep the previous file as .old for";
    if (exists) keep_previous(path);
    step = "rename the temporary file to";
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail_with_errno();
  } catch (const SystemFailure& f) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    throw UserError(std::string("cannot ") + step + " " + what + " '" + path + "' (" +
                    errno_text(f.err) + "); choose another location with -o");
  }
  sync_directory(directory_of(path));
}

std::string read_whole_file(const std::string& path, const char* what, size_t limit) {
  auto fail = [&](int err) {
    return UserError(std::string("cannot read ") + what + " '" + path + "' (" + errno_text(err) +
                     "); check the path");
  };
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw fail(errno);
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    throw fail(EISDIR);
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      throw fail(err);
    }
    if (n == 0) break;
    if (std::memchr(buf, 0, size_t(n)) || text.size() + size_t(n) > limit) {
      ::close(fd);
      throw UserError(std::string(what) + " '" + path + "' is not a text file of at most " +
                      std::to_string(limit >> 20) + " MiB; check the path");
    }
    text.append(buf, size_t(n));
  }
  ::close(fd);
  return text;
}

}  // namespace roofprof::result
