#pragma once
// What `roofprof run` hears from its probe mechanisms (regions::RunObserver): the backend said
// once the regions resolved, call groups keyed at entry and by return address, and with
// --cache-state cold outside emulation the caches evicted before each outermost call.
#include <cstdio>
#include <string>
#include <vector>

#include "run/groups.hpp"
#include "common/evict.hpp"
#include "regions/run_observer.hpp"

namespace roofprof::run {

class Observer final : public regions::RunObserver {
 public:
  // `groups` (not owned): the run's call groups. `announcement`: lines said on `out` at the
  // first ready() (none: quiet).
  Observer(CallGroups& groups, std::vector<std::string> announcement, std::FILE* out = stderr)
      : groups_(groups), announcement_(std::move(announcement)), out_(out) {}
  // --cache-state cold outside emulation: evict with `evictor` (not owned) before each outermost call.
  void evict_with(CacheEvictor* evictor) { evictor_ = evictor; }

  void ready() override;
  std::string key_at_entry(regions::RegionId id, signatures::ArgReader& args) override {
    return groups_.key_for(id, args);
  }
  bool keys_returns() const override { return groups_.by_caller(); }
  std::string key_of_return(regions::RegionId id, int pid, uint64_t return_address) override {
    return groups_.key_for_return(id, pid, return_address);
  }
  void module_seen(int pid, const std::string& path, uint64_t bias) override {
    groups_.module_loaded(pid, path, bias);
  }
  bool acts_before_outermost_entry() const override { return evictor_ != nullptr; }
  void before_outermost_entry(pid_t tid) override;

 private:
  CallGroups& groups_;
  std::vector<std::string> announcement_;
  std::FILE* out_;
  bool announced_ = false;
  CacheEvictor* evictor_ = nullptr;
};

}  // namespace roofprof::run
