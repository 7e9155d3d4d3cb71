#pragma once
// Native counting's module plans kept on disk (docs/native.md, "Plans kept between runs"): a
// module's plan depends on its file, on the probe addresses given as `busy` and on the roofprof
// that planned it, so a second run of the same program plans nothing. Entries live in
// DIR/native/ (DIR: default_cache_dir()), one file per (file, busy, roofprof), with addresses
// relative to the module's load bias; an entry whose key does not match in full, or that does
// not read back whole, is ignored (and replaced). The directory is kept under 512 MiB, the
// least recently written entries going first.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>

#include "native/counting.hpp"

namespace roofprof::native {

struct PlanKey {
  std::string text;  // the whole key, kept in the entry and compared on load
  std::filesystem::path file;
};

// nullopt when the file or roofprof's own executable cannot be identified (nothing is cached).
// `busy` in runtime addresses, `bias` the module's.
std::optional<PlanKey> plan_key(const std::filesystem::path& dir, const std::string& module_path,
                                std::span<const uint64_t> busy, uint64_t bias);

std::optional<ModulePlan> load_plan(const PlanKey& key, uint64_t bias);
// Best effort: a cache that cannot be written is no error.
void store_plan(const PlanKey& key, const ModulePlan& plan, uint64_t bias);

}  // namespace roofprof::native
