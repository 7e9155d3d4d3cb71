#pragma once
// Series by problem size: calls of a region grouped by their decoded arguments (built-in
// signatures of BLAS/LAPACK functions, signatures/), or, with `run --group-by caller[:DEPTH]`,
// by their call path ("<- solve (solver.c:120)"). The tracer asks for a call's key at entry;
// finished calls are kept per region and turned into the result's `groups` at the end, with the
// emulated run's per-call W and Q when its calls line up with the native run's.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "emul/emul.hpp"
#include "probes/plan.hpp"
#include "regions/tracker.hpp"
#include "result/result.hpp"
#include "signatures/signatures.hpp"
#include "symbolizer/call_site.hpp"

namespace roofprof::run {

class CallGroups {
 public:
  // `caller_depth` 0: by arguments; N > 0: by the innermost N call sites.
  explicit CallGroups(const probes::Planner& planner, int caller_depth = 0)
      : planner_(planner), caller_depth_(caller_depth), namer_(elf_cache_) {}

  // The group key of a call of `region` that `args` shows at its entry; "" when the region has
  // no known signature or the arguments (the stack, by caller) cannot be read.
  std::string key_for(regions::RegionId region, signatures::ArgReader& args);
  // The group of a call the in-process agent recorded, from its return address: by caller, at
  // depth 1 (the agent records no deeper path); "" otherwise.
  std::string key_for_return(regions::RegionId region, int pid, uint64_t return_address);
  // A module the agent saw loaded in `pid` at `bias`: names its return addresses after the
  // process has ended.
  void module_loaded(int pid, const std::string& path, uint64_t bias) { namer_.add_module(pid, path, bias); }
  // Whether calls of `region` need a breakpoint at entry for their key (a known signature; a
  // call path deeper than the return address): the tracer reads arguments and unwinds there.
  bool keyed_at_entry(regions::RegionId region);
  bool by_caller() const { return caller_depth_ > 0; }
  int caller_depth() const { return caller_depth_; }
  // A finished native call.
  void add(const regions::Instance& inst);
  // Whether the native run's calls of `region` were grouped by their arguments (the emulated
  // run's calls of it are wanted one by one).
  bool grouped(regions::RegionId region) const { return calls_.count(region) != 0; }
  // The emulated run's calls: per-call W and Q for regions whose call counts match.
  void add_emulated(const emul::Result& emulated);
  // Writes `groups` into each region (planner order).
  void fill(std::vector<result::Region>& regions, const std::vector<std::string>& events) const;
  // Native counting's classes in each call's counts from `first` on (counters/native_counters.hpp):
  // each call's W is their sum, whatever an emulated pass adds (its bytes).
  void set_native_classes(int first) { native_at_ = first; }

 private:
  const signatures::Signature* signature_of(regions::RegionId region);
  bool is_function(regions::RegionId region) const;
  std::string caller_key(regions::RegionId region, int pid, const std::vector<uint64_t>& return_addresses);

  const probes::Planner& planner_;
  const int caller_depth_;
  symbolizer::ElfCache elf_cache_;
  symbolizer::CallSiteNamer namer_;
  std::map<std::pair<regions::RegionId, std::string>, std::vector<std::string>> paths_;  // by caller
  std::map<regions::RegionId, const signatures::Signature*> signatures_;
  std::map<std::pair<regions::RegionId, std::string>, signatures::Decoded> decoded_;
  std::map<regions::RegionId, std::vector<regions::Instance>> calls_;
  std::map<regions::RegionId, std::vector<regions::Instance>> emulated_;
  std::vector<std::string> emulated_names_;
  int native_at_ = -1;
};

}  // namespace roofprof::run
