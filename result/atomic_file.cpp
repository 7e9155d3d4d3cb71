#include "result/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.hpp"

namespace roofprof::result {
namespace {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

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
