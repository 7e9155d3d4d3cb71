#include "tracer/address_space.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "common/error.hpp"

namespace roofprof::tracer {

namespace {
constexpr uint8_t kInt3 = 0xcc;
constexpr size_t kSlotSize = 16;
constexpr size_t kScratchSize = 4096;
constexpr size_t kCodeScratchSize = 64 * 1024;  // entry-patch thunks: 512 of them per mapping
// Slots must be within rip-relative reach (+-2 GiB) of the instruction they replay.
constexpr int64_t kReach = int64_t(1) << 30;
}  // namespace

void AddressSpace::reset(pid_t pid) {
  pid_ = pid;
  mem_.open(pid);
  bps_.clear();
  scratch_.clear();
  slot_of_.clear();
}

TraceeAddr AddressSpace::take(TraceeAddr near, size_t bytes, size_t page_bytes, const ScratchAllocator& alloc) {
  for (auto& s : scratch_) {
    if (s.used + bytes <= s.size && std::llabs(s.base - near) < kReach) {
      TraceeAddr slot = s.base + int64_t(s.used);
      s.used += bytes;
      return slot;
    }
  }
  TraceeAddr base = alloc(near, page_bytes);
  if (!base || std::llabs(base - near) >= kReach) return TraceeAddr();
  std::vector<uint8_t> fill(page_bytes, kInt3);
  mem_.write(base, fill.data(), fill.size());
  scratch_.push_back(Scratch{base, page_bytes, bytes});
  return base;
}

TraceeAddr AddressSpace::take_slot(TraceeAddr near, const ScratchAllocator& alloc) {
  return take(near, kSlotSize, kScratchSize, alloc);
}

TraceeAddr AddressSpace::take_code(TraceeAddr near, size_t bytes, const ScratchAllocator& alloc) {
  return take(near, bytes, kCodeScratchSize, alloc);
}

bool AddressSpace::add_probe(TraceeAddr at, const Probe& p, const ScratchAllocator& alloc) {
  auto it = bps_.find(at);
  if (it != bps_.end()) {
    it->second.probes.push_back(p);
    return true;
  }
  uint8_t code[16] = {};
  if (!mem_.read(at, code, sizeof code) && !mem_.read(at, code, 1))
    throw UserError(fmt::format("cannot read the tracee's code at {:#x}", at.value()));
  Breakpoint bp;
  bp.addr = at;
  bp.original = code[0];
  // Decode with a provisional slot first to learn whether a slot is needed at all.
  bp.displaced = prepare_displaced(code, sizeof code, at, at);
  if (bp.displaced.mode == Displaced::Mode::Step) {
    auto known = slot_of_.find(at);
    bp.slot = known != slot_of_.end() ? known->second : take_slot(at, alloc);
    if (!bp.slot) return false;
    slot_of_[at] = bp.slot;
    bp.displaced = prepare_displaced(code, sizeof code, at, bp.slot);
    if (!mem_.write(bp.slot, bp.displaced.copy.data(), bp.displaced.len))
      throw UserError(fmt::format("cannot write the scratch slot at {:#x}", bp.slot.value()));
  }
  if (!mem_.write(at, &kInt3, 1))
    throw UserError(fmt::format("cannot insert a breakpoint at {:#x} in process {}", at.value(), pid_));
  bp.probes.push_back(p);
  bps_.emplace(at, std::move(bp));
  return true;
}

void AddressSpace::remove_probe(TraceeAddr at, const Probe& p) {
  auto it = bps_.find(at);
  if (it == bps_.end()) return;
  auto& probes = it->second.probes;
  auto pos = std::find(probes.begin(), probes.end(), p);
  if (pos == probes.end()) return;
  probes.erase(pos);
  if (probes.empty()) {
    mem_.write(at, &it->second.original, 1);
    bps_.erase(it);  // the slot is not reused: a thread may still be stepping in it
  }
}

size_t AddressSpace::remove_probe_everywhere(const Probe& p) {
  std::vector<TraceeAddr> at;
  for (const auto& [addr, bp] : bps_)
    at.insert(at.end(), size_t(std::count(bp.probes.begin(), bp.probes.end(), p)), addr);
  for (TraceeAddr a : at) remove_probe(a, p);
  return at.size();
}

const Breakpoint* AddressSpace::find(TraceeAddr at) const {
  auto it = bps_.find(at);
  return it == bps_.end() ? nullptr : &it->second;
}

void AddressSpace::remove_all() {
  for (auto& [at, bp] : bps_) mem_.write(at, &bp.original, 1);
  bps_.clear();
}

void AddressSpace::forget_range(TraceeAddr lo, TraceeAddr hi) {
  for (auto it = bps_.begin(); it != bps_.end();) {
    if (it->first >= lo && it->first < hi) it = bps_.erase(it);
    else ++it;
  }
  slot_of_.erase(slot_of_.lower_bound(lo), slot_of_.lower_bound(hi));  // other code may come there
}

std::shared_ptr<AddressSpace> AddressSpace::clone_for(pid_t child) const {
  auto as = std::make_shared<AddressSpace>(child);
  as->bps_ = bps_;
  as->scratch_ = scratch_;
  as->slot_of_ = slot_of_;
  return as;
}

}  // namespace roofprof::tracer
