#include "tracer/call_path.hpp"

#include <libunwind-ptrace.h>

namespace roofprof::tracer {
namespace {

// libunwind's ptrace accessors, except that the unwinding starts in the caller's frame: at a
// function's first instruction the caller's frame is the stopped frame with rip = the return
// address and rsp above it, and every other register as the caller left it. (Starting in the
// stopped frame itself would unwind with the CFI of the breakpoint's address, which is one
// byte into the first instruction after the trap.)
struct Start {
  void* upt;
  unw_word_t rip, rsp;
};
// The unwinding in progress (libunwind calls back with the UPT handle as `arg`, also from inside
// its own _UPT_ functions, so the start registers travel beside it).
thread_local const Start* current = nullptr;

int access_reg(unw_addr_space_t as, unw_regnum_t reg, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EREADONLYREG;  // nothing is written back into the program
  if (current && arg == current->upt && (reg == UNW_X86_64_RIP || reg == UNW_X86_64_RSP)) {
    *val = reg == UNW_X86_64_RIP ? current->rip : current->rsp;
    return 0;
  }
  return _UPT_access_reg(as, reg, val, write, arg);
}

int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t* val, int write, void* arg) {
  if (write) return -UNW_EINVAL;
  return _UPT_access_mem(as, addr, val, write, arg);
}

int access_fpreg(unw_addr_space_t as, unw_regnum_t reg, unw_fpreg_t* val, int write, void* arg) {
  if (write) return -UNW_EREADONLYREG;
  return _UPT_access_fpreg(as, reg, val, write, arg);
}

int resume(unw_addr_space_t, unw_cursor_t*, void*) { return -UNW_EINVAL; }  // never resumed from here

unw_accessors_t accessors() {
  unw_accessors_t a = _UPT_accessors;
  a.access_mem = access_mem;
  a.access_reg = access_reg;
  a.access_fpreg = access_fpreg;
  a.resume = resume;
  return a;
}

}  // namespace

Unwinder::Unwinder() {
  unw_accessors_t a = accessors();
  space_ = unw_create_addr_space(&a, 0);
  if (space_) unw_set_caching_policy(static_cast<unw_addr_space_t>(space_), UNW_CACHE_GLOBAL);
}

Unwinder::~Unwinder() {
  for (auto& [tid, upt] : threads_) _UPT_destroy(upt);
  if (space_) unw_destroy_addr_space(static_cast<unw_addr_space_t>(space_));
}

void Unwinder::forget(pid_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) return;
  _UPT_destroy(it->second);
  threads_.erase(it);
}

std::vector<uint64_t> Unwinder::return_addresses(pid_t tid, const user_regs_struct& regs, const TraceeMemory& mem,
                                                 int depth) {
  std::vector<uint64_t> out;
  auto ret = mem.read_u64(TraceeAddr(regs.rsp));
  if (!ret || depth < 1) return out;
  out.push_back(*ret);
  if (depth == 1 || !space_) return out;
  void*& upt = threads_[tid];
  if (!upt) upt = _UPT_create(tid);
  if (!upt) return out;
  Start start{upt, *ret, regs.rsp + 8};
  current = &start;
  unw_cursor_t cursor;
  if (unw_init_remote(&cursor, static_cast<unw_addr_space_t>(space_), upt) >= 0) {
    while (int(out.size()) < depth && unw_step(&cursor) > 0) {
      unw_word_t ip = 0;
      if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0) break;
      out.push_back(ip);
    }
  }
  current = nullptr;
  return out;
}

}  // namespace roofprof::tracer
