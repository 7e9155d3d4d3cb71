#include "tracer/task.hpp"

#include <sys/ptrace.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>
#include <fstream>
#include <string>

#include "common/log.hpp"

namespace roofprof::tracer {

namespace {

const char* how_name(How how) {
  return how == How::Step ? "step" : how == How::Listen ? "listen" : "continue";
}

}  // namespace

bool Task::flush_regs() {
  if (!regs_dirty_) return true;
  regs_dirty_ = false;
  return ptrace(PTRACE_SETREGS, tid, nullptr, &regs_) == 0;
}

bool Task::gone_or_bug(const char* request) {
  const int err = errno;
  stopped_ = false;
  regs_valid_ = false;
  if (err == ESRCH) return false;
  throw std::logic_error(fmt::format("tracer: {} of task {} failed: {}", request, tid, std::strerror(err)));
}

bool Task::resume(How how, int sig) {
  if (!stopped_)
    throw std::logic_error(fmt::format("tracer: task {} resumed while not stopped (its last wait status, if any: {})", tid,
                                       last_.describe()));
  if (!flush_regs()) return gone_or_bug("PTRACE_SETREGS");
  long req = how == How::Step ? PTRACE_SINGLESTEP : how == How::Listen ? PTRACE_LISTEN : PTRACE_CONT;
  if (how == How::Listen && last_.type() != WaitStatus::Type::GroupStop) {
    // PTRACE_LISTEN works only from a group-stop. A job-stopped thread that we ran since (a
    // remote syscall's single steps) is in a SIGTRAP stop instead: ask for a trap and continue.
    // The kernel takes the trap in get_signal(), before any user instruction, and reports a
    // group-stop (PTRACE_EVENT_STOP, SIGSTOP while the group is stopped), which is listened to.
    if (ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr) != 0) return gone_or_bug("PTRACE_INTERRUPT");
    req = PTRACE_CONT;
  }
  regs_valid_ = false;
  stopped_ = false;
  log::line(log::Category::Tracer, "resume {} {} signal {}", tid, how_name(how), sig);
  if (ptrace(__ptrace_request(req), tid, nullptr, reinterpret_cast<void*>(long(sig))) == 0) return true;
  return gone_or_bug(req == PTRACE_SINGLESTEP ? "PTRACE_SINGLESTEP" : req == PTRACE_LISTEN ? "PTRACE_LISTEN" : "PTRACE_CONT");
}

void Task::did_wait(WaitStatus ws) {
  if (log::on(log::Category::Tracer)) log::line(log::Category::Tracer, "stop {}: {}", tid, ws.describe());
  last_ = ws;
  regs_valid_ = regs_dirty_ = false;
  stopped_ = !ws.is_gone();
}

WaitStatus Task::wait_own() {
  int status = 0;
  pid_t r;
  do r = waitpid(tid, &status, __WALL);
  while (r < 0 && errno == EINTR);
  WaitStatus ws(r == tid ? status : W_EXITCODE(0, 0));  // ECHILD: gone
  did_wait(ws);
  return ws;
}

void Task::detach(int sig) {
  flush_regs();
  stopped_ = false;
  regs_valid_ = false;
  ptrace(PTRACE_DETACH, tid, nullptr, reinterpret_cast<void*>(long(sig)));
}

void Task::interrupt() { ptrace(PTRACE_INTERRUPT, tid, nullptr, nullptr); }

bool Task::read_regs(user_regs_struct& out) {
  if (!regs_valid_) {
    if (ptrace(PTRACE_GETREGS, tid, nullptr, &regs_) != 0) return false;
    regs_valid_ = true;
  }
  out = regs_;
  return true;
}

const user_regs_struct& Task::regs() {
  if (!regs_valid_ && ptrace(PTRACE_GETREGS, tid, nullptr, &regs_) == 0) regs_valid_ = true;
  return regs_;
}

void Task::set_regs(const user_regs_struct& r) {
  regs_ = r;
  regs_valid_ = regs_dirty_ = true;
}

siginfo_t Task::siginfo() {
  siginfo_t si{};
  ptrace(PTRACE_GETSIGINFO, tid, nullptr, &si);
  return si;
}

unsigned long Task::event_msg() {
  unsigned long msg = 0;
  ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &msg);
  return msg;
}

uint64_t Task::pending_signals() const {
  std::ifstream in("/proc/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("SigPnd:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  return 0;
}

}  // namespace roofprof::tracer
