#include "common/log.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "common/error.hpp"

namespace roofprof::log {

Settings parse(const char* categories, const char* file) {
  Settings s;
  const char* bad = nullptr;
  size_t bad_len = 0;
  if (rp_log_parse(categories, &s.mask, &bad, &bad_len) != 0)
    throw UserError(fmt::format("{}: unknown category '{}'; the categories are tracer, counters, agent, emul and all "
                                "(comma-separated)",
                                RP_ENV_LOG, std::string_view(bad, bad_len)));
  if (file) s.file = file;
  return s;
}

Sink::Sink(const Settings& settings) : mask_(settings.mask), fd_(2) {
  if (mask_ == 0) return;
  fd_ = rp_log_open(settings.file.c_str());
  if (fd_ < 0)
    throw UserError(fmt::format("{}: cannot open {} for appending ({}); give a writable file or unset it",
                                RP_ENV_LOG_FILE, settings.file, std::strerror(errno)));
}

Sink::~Sink() {
  if (fd_ > 2) ::close(fd_);
}

void Sink::write(Category c, std::string_view text) const {
  if (!on(c)) return;
  char buf[RP_LOG_LINE_MAX];
  size_t n = rp_log_format(buf, sizeof buf, rp_log_now_ns(), "roofprof", int(::getpid()), unsigned(c), text.data(), text.size());
  for (size_t done = 0; done < n;) {  // one write on a regular file or a pipe; retried if cut short
    ssize_t w = ::write(fd_, buf + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    done += size_t(w);
  }
}

namespace detail {

unsigned active_mask = 0;

namespace {
std::unique_ptr<Sink>& process_sink() {
  static std::unique_ptr<Sink> s = std::make_unique<Sink>(Settings{});
  return s;
}
}  // namespace

const Sink& sink() { return *process_sink(); }

}  // namespace detail

void configure_from_environment() {
  Settings s = parse(std::getenv(RP_ENV_LOG), std::getenv(RP_ENV_LOG_FILE));
  detail::process_sink() = std::make_unique<Sink>(s);
  detail::active_mask = s.mask;
}

}  // namespace roofprof::log
