#include "run/groups.hpp"

#include "counters/native_counters.hpp"

#include "run/emul_merge.hpp"

#include "result/group_table.hpp"

namespace roofprof::run {

const signatures::Signature* CallGroups::signature_of(regions::RegionId region) {
  auto it = signatures_.find(region);
  if (it != signatures_.end()) return it->second;
  const auto& info = planner_.regions().at(region);
  const signatures::Signature* sig = nullptr;
  if (info.kind == regions::RegionKind::Function) {
    sig = signatures::find_builtin(info.name);
    for (size_t i = 0; !sig && i < info.sites.size(); ++i) sig = signatures::find_builtin(info.sites[i].symbol);
  }
  signatures_.emplace(region, sig);
  return sig;
}

bool CallGroups::is_function(regions::RegionId region) const {
  return planner_.regions().at(region).kind == regions::RegionKind::Function;
}

bool CallGroups::keyed_at_entry(regions::RegionId region) {
  if (caller_depth_ > 0) return caller_depth_ > 1 && is_function(region);
  return signature_of(region) != nullptr;
}

std::string CallGroups::key_for_return(regions::RegionId region, int pid, uint64_t return_address) {
  if (caller_depth_ != 1 || !is_function(region)) return {};
  return caller_key(region, pid, {return_address});
}

std::string CallGroups::caller_key(regions::RegionId region, int pid, const std::vector<uint64_t>& return_addresses) {
  std::vector<std::string> path;
  for (uint64_t ret : return_addresses) path.push_back(namer_.name(pid, ret));
  if (path.empty()) return {};
  std::string key;
  for (const auto& site : path) key += (key.empty() ? "<- " : " <- ") + site;
  paths_.try_emplace({region, key}, std::move(path));
  return key;
}

std::string CallGroups::key_for(regions::RegionId region, signatures::ArgReader& args) {
  if (caller_depth_ > 0)
    return is_function(region) ? caller_key(region, args.process(), args.return_addresses(caller_depth_))
                               : std::string();
  const signatures::Signature* sig = signature_of(region);
  if (!sig) return {};
  auto decoded = signatures::decode(*sig, args);
  if (!decoded) return {};
  std::string key = decoded->key;
  decoded_.try_emplace({region, key}, std::move(*decoded));
  return key;
}

void CallGroups::add(const regions::Instance& inst) {
  if (!inst.group.empty()) calls_[inst.region].push_back(inst);
}

void CallGroups::add_emulated(const emul::Result& emulated) {
  emulated_names_ = emulated.counters;
  for (const auto& inst : emulated.instances)
    if (calls_.count(inst.region)) emulated_[inst.region].push_back(inst);
}

void CallGroups::fill(std::vector<result::Region>& regions, const std::vector<std::string>& events) const {
  for (const auto& [region, calls] : calls_) {
    if (region >= regions.size()) continue;
    // Per-call W and Q only when both runs saw the same calls (in the same order).
    const std::vector<regions::Instance>* emul = nullptr;
    if (auto it = emulated_.find(region); it != emulated_.end() && it->second.size() == calls.size())
      emul = &it->second;
    result::GroupTable table(events);
    for (size_t i = 0; i < calls.size(); ++i) {
      const auto& inst = calls[i];
      result::GroupCall call;
      call.duration_s = double(inst.end_ns - inst.begin_ns) * 1e-9;
      call.counters = inst.counts;
      if (emul) {
        const auto& e = (*emul)[i];
        auto q = emulated_quantities(emulated_names_, e.counts);
        call.flops = q.flops;
        call.bytes = std::move(q.bytes);
      }
      if (native_at_ >= 0) call.flops = counters::native_w(inst.counts, native_at_);
      if (auto d = decoded_.find({region, inst.group}); d != decoded_.end())
        table.add(inst.group, d->second.param_map(), d->second.expected_work, call);
      else
        table.add(inst.group, {}, std::nullopt, call);  // by caller: no parameters, no formula
    }
    regions[region].groups = table.groups();
    for (auto& g : regions[region].groups)
      if (auto p = paths_.find({region, g.key}); p != paths_.end()) g.call_path = p->second;
  }
}

}  // namespace roofprof::run
