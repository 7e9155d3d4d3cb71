#include "common/output_file.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "common/error.hpp"
#include "common/temp_dir.hpp"

namespace roofprof {
namespace {

namespace fs = std::filesystem;

// claim_output tries NAME.EXT, NAME.1.EXT, ... up to this many names.
constexpr unsigned kMaxClaimedNames = 1000;

std::string errno_text(int err) { return std::strerror(err); }

// A failed system call while writing, caught by write_output and turned into a fallback.
struct SystemFailure {
  int err;
  const char* step;
};
[[noreturn]] void fail(const char* step) { throw SystemFailure{errno, step}; }

std::string directory_of(const std::string& path) {
  std::string dir = fs::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

// The descriptor a stream name stands for, or -1.
int stream_fd(const std::string& path) {
  if (path == "-" || path == "/dev/stdout" || path == "/dev/fd/1" || path == "/proc/self/fd/1") return 1;
  if (path == "/dev/stderr" || path == "/dev/fd/2" || path == "/proc/self/fd/2") return 2;
  return -1;
}

// A new, empty, uniquely named file in `dir`, mode 0666 minus the umask. -1 with errno set when
// the directory does not take one.
std::pair<int, std::string> create_temporary(const std::string& dir, const std::string& base) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string tmp = dir + "/." + base + ".tmp." + std::to_string(getpid()) + "." +
                      std::to_string(counter.fetch_add(1));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return {fd, tmp};
    if (errno != EEXIST) return {-1, tmp};
  }
  errno = EEXIST;
  return {-1, ""};
}

void write_all(int fd, const std::string& text) {
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("write");
    p += n;
    left -= size_t(n);
  }
}

// `path` (if it exists) also becomes `path.old`; `path` itself stays in place.
void keep_previous(const std::string& path) {
  const std::string old = path + ".old";
  if (::unlink(old.c_str()) != 0 && errno != ENOENT) fail("keep the previous file as .old for");
  if (::link(path.c_str(), old.c_str()) == 0) return;
  // No hard links on this file system: move it instead (brief window without `path`).
  if (::rename(path.c_str(), old.c_str()) != 0) fail("keep the previous file as .old for");
}

// The new file gets the mode and owner of the one it replaces: a 0600 result stays 0600. The
// owner only where this user may give it (root, or a group of its own); the mode always.
void keep_attributes(int fd, const struct stat& old) {
  if (::fchown(fd, old.st_uid, old.st_gid) != 0) (void)!::fchown(fd, uid_t(-1), old.st_gid);
  if (::fchmod(fd, old.st_mode & 0777) != 0) fail("set the mode of");
}

// Temporary file, optional .old, rename over `path` (output_file.hpp: why no fsync).
void replace_regular(const std::string& path, const std::string& text, KeepPrevious keep) {
  const std::string dir = directory_of(path);
  auto [fd, tmp] = create_temporary(dir, fs::path(path).filename().string());
  if (fd < 0) fail("create a temporary file for");
  try {
    struct stat old {};
    const bool replaces = ::lstat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode);  // never a link's target
    if (replaces) keep_attributes(fd, old);
    write_all(fd, text);
    if (::close(fd) != 0) {
      fd = -1;
      fail("write");
    }
    fd = -1;
    if (keep == KeepPrevious::yes && replaces) keep_previous(path);
    if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename the temporary file to");
  } catch (const SystemFailure&) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    errno = err;
    throw;
  }
}

void write_in_place(const OutputTarget& t, const std::string& text) {
  if (t.kind == OutputKind::Stream) {
    write_all(t.fd, text);
    return;
  }
  int fd = ::open(t.resolved.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail("open");
  try {
    // A file put there since the check is not written over (open without O_TRUNC changed nothing).
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail("open");
    if (!S_ISCHR(st.st_mode) && !S_ISFIFO(st.st_mode)) {
      errno = EEXIST;
      fail("write in place (it is no longer a device or FIFO)");
    }
    write_all(fd, text);
  } catch (const SystemFailure&) {
    const int err = errno;
    ::close(fd);
    errno = err;
    throw;
  }
  ::close(fd);
}

// Saves `text` under a new name in the current directory or the temporary directory; the path
// written, or "" when neither took it.
std::string save_fallback(const std::string& text, const std::string& base) {
  std::vector<std::string> dirs;
  if (char* cwd = ::getcwd(nullptr, 0)) {
    dirs.emplace_back(cwd);
    std::free(cwd);
  }
  dirs.push_back(temp_root());
  const std::string name = "roofprof-fallback-" + std::to_string(getpid()) + "-" + (base.empty() ? "output" : base);
  for (const auto& dir : dirs) {
    const std::string path = dir + "/" + name;
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) continue;
    try {
      write_all(fd, text);
      if (::fsync(fd) != 0) fail("write");
      ::close(fd);
      return path;
    } catch (const SystemFailure&) {
      ::close(fd);
      ::unlink(path.c_str());
    }
  }
  return "";
}

// A file can be created in `dir`: created and removed at once.
void check_directory(const std::string& path, const std::string& dir, const char* what) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    throw UserError(std::string("cannot write ") + what + " '" + path + "': directory '" + dir + "' " +
                    (errno == ENOENT ? "does not exist; create it or" : "cannot be reached (" + errno_text(errno) + ");") +
                    " choose another location with -o");
  if (!S_ISDIR(st.st_mode))
    throw UserError(std::string("cannot write ") + what + " '" + path + "': '" + dir +
                    "' is not a directory; choose another location with -o");
  auto [fd, tmp] = create_temporary(dir, "roofprof-check");
  if (fd < 0)
    throw UserError(std::string("cannot write ") + what + " '" + path + "': directory '" + dir +
                    "' is not writable (" + errno_text(errno) + "); choose a writable location with -o");
  ::close(fd);
  ::unlink(tmp.c_str());
}

// A symbolic link as the output: followed only when it is yours (or root's) and leads to a
// character device or FIFO, which is written in place. A link to a file is refused: writing
// through it would replace a file elsewhere (another user's link in /tmp, a link to a system file).
OutputTarget check_link(const std::string& path, const struct stat& link, const char* what) {
  auto refuse = [&](const std::string& why) {
    return UserError(std::string("cannot write ") + what + " '" + path + "': " + why);
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw refuse("it is a symbolic link to a missing file; remove the link or choose another name");
  const bool trusted = link.st_uid == ::geteuid() || link.st_uid == 0;
  if (!(S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) || !trusted)
    throw refuse(std::string("it is a symbolic link") + (trusted ? "" : " of another user") +
                 "; roofprof writes results only to a file of that name, never through a link: remove the link or "
                 "give the path it points to");
  OutputTarget t;
  t.path = path;
  std::error_code ec;
  t.resolved = fs::canonical(path, ec).string();
  if (ec) t.resolved = path;
  if (::access(t.resolved.c_str(), W_OK) != 0)
    throw refuse("the device is not writable (" + errno_text(errno) + ")");
  t.kind = OutputKind::Special;
  return t;
}

// In a sticky directory (/tmp) another user's file cannot be replaced: said now, not after the run.
void check_not_others_in_sticky(const std::string& path, const struct stat& file, const char* what) {
  struct stat dir {};
  if (::geteuid() == 0 || file.st_uid == ::geteuid()) return;
  if (::stat(directory_of(path).c_str(), &dir) != 0 || !(dir.st_mode & S_ISVTX) || dir.st_uid == ::geteuid()) return;
  throw UserError(std::string("cannot write ") + what + " '" + path +
                  "': it belongs to another user in a shared directory; choose another name");
}

}  // namespace

OutputTarget check_output(const std::string& path, const char* what) {
  if (path.empty()) throw UserError(std::string("no file name given for the ") + what);
  OutputTarget t;
  t.path = path;
  if (int fd = stream_fd(path); fd >= 0) {
    t.kind = OutputKind::Stream;
    t.fd = fd;
    return t;
  }
  auto refuse = [&](const std::string& why) {
    return UserError(std::string("cannot write ") + what + " '" + path + "': " + why);
  };
  struct stat lst {};
  const bool exists = ::lstat(path.c_str(), &lst) == 0;
  if (!exists && errno != ENOENT && errno != ENOTDIR) throw refuse(errno_text(errno) + "; choose another location with -o");
  if (exists && S_ISLNK(lst.st_mode)) return check_link(path, lst, what);
  if (exists) {
    if (S_ISDIR(lst.st_mode)) throw refuse("it is a directory; give a file name");
    if (S_ISBLK(lst.st_mode)) throw refuse("it is a block device; give a file name");
    if (S_ISSOCK(lst.st_mode)) throw refuse("it is a socket; give a file name");
    if (S_ISCHR(lst.st_mode) || S_ISFIFO(lst.st_mode)) {
      if (::access(path.c_str(), W_OK) != 0) throw refuse("the device is not writable (" + errno_text(errno) + ")");
      t.kind = OutputKind::Special;
      t.resolved = path;
      return t;
    }
    check_not_others_in_sticky(path, lst, what);
  }
  t.kind = OutputKind::Regular;
  t.resolved = path;
  check_directory(path, directory_of(path), what);
  return t;
}

std::unique_ptr<NameClaim> NameClaim::try_claim(const std::string& path) {
  const fs::path p(path);
  const std::string lock = (p.has_parent_path() ? p.parent_path().string() + "/" : std::string()) + "." +
                           p.filename().string() + ".lock";
  for (int attempt = 0; attempt < 100; ++attempt) {
    int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return nullptr;
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return nullptr;
    }
    // The file may have been removed (by the claim that held it) between open and flock: the
    // lock holds only on the file that is under the name now.
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::stat(lock.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino)
      return std::unique_ptr<NameClaim>(new NameClaim(fd, lock));
    ::close(fd);
  }
  return nullptr;
}

NameClaim::~NameClaim() {
  ::unlink(lock_path_.c_str());  // while locked: a process waiting on this file sees it replaced
  ::close(fd_);
}

OutputTarget claim_output(const std::string& path, const char* what) {
  const fs::path p(path);
  const std::string stem = (p.parent_path() / p.stem()).string(), ext = p.extension().string();
  for (unsigned n = 0; n < kMaxClaimedNames; ++n) {
    const std::string name = n == 0 ? path : stem + "." + std::to_string(n) + ext;
    OutputTarget t = check_output(name, what);
    if (t.kind != OutputKind::Regular) return t;
    if (auto claim = NameClaim::try_claim(name)) {
      t.claim = std::move(claim);
      return t;
    }
  }
  throw UserError(std::string("cannot write ") + what + " '" + path + "': it and the next " +
                  std::to_string(kMaxClaimedNames - 1) + " numbered names are held by other roofprof runs; name the "
                  "file with -o");
}

void write_output(const OutputTarget& target, const std::string& text, const char* what, KeepPrevious keep) {
  try {
    if (target.kind == OutputKind::Regular) replace_regular(target.resolved, text, keep);
    else write_in_place(target, text);
    return;
  } catch (const SystemFailure& f) {
    const std::string base = target.kind == OutputKind::Stream ? "" : fs::path(target.path).filename().string();
    const std::string saved = save_fallback(text, base);
    const std::string head = std::string("cannot ") + f.step + " " + what + " '" + target.path + "' (" + errno_text(f.err) + ")";
    if (saved.empty())
      throw UserError(head + "; no fallback file could be written in the current or temporary directory either");
    throw UserError(head + "; it was saved to '" + saved + "' instead");
  }
}

void write_output_file(const std::string& path, const std::string& text, const char* what, KeepPrevious keep) {
  write_output(check_output(path, what), text, what, keep);
}

}  // namespace roofprof
