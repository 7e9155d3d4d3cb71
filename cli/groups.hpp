#pragma once
// Series by problem size: calls of a region grouped by their decoded arguments (built-in
// signatures of BLAS/LAPACK functions, signatures/). The tracer asks for a call's key at entry;
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

namespace roofprof::cli {

class CallGroups {
 public:
  explicit CallGroups(const probes::Planner& planner) : planner_(planner) {}

  // The group key of a call of `region` whose arguments `args` shows; "" when the region has no
  // known signature or the arguments cannot be read.
  std::string key_for(regions::RegionId region, signatures::ArgReader& args);
  // Whether calls of `region` are grouped by their arguments (a known signature).
  bool has_signature(regions::RegionId region) { return signature_of(region) != nullptr; }
  // A finished native call.
  void add(const regions::Instance& inst);
  // Whether the native run's calls of `region` were grouped by their arguments (the emulated
  // run's calls of it are wanted one by one).
  bool grouped(regions::RegionId region) const { return calls_.count(region) != 0; }
  // The emulated run's calls: per-call W and Q for regions whose call counts match.
  void add_emulated(const emul::Result& emulated);
  // Writes `groups` into each region (planner order).
  void fill(std::vector<result::Region>& regions, const std::vector<std::string>& events) const;

 private:
  const signatures::Signature* signature_of(regions::RegionId region);

  const probes::Planner& planner_;
  std::map<regions::RegionId, const signatures::Signature*> signatures_;
  std::map<std::pair<regions::RegionId, std::string>, signatures::Decoded> decoded_;
  std::map<regions::RegionId, std::vector<regions::Instance>> calls_;
  std::map<regions::RegionId, std::vector<regions::Instance>> emulated_;
  std::vector<std::string> emulated_names_;
};

}  // namespace roofprof::cli
