#pragma once
// Native counting's patches kept on disk (docs/native.md, "Patches kept between runs"): what a
// module gets (its trampolines, its jumps, and what its plan says of the code it could not count)
// depends on its file, on the probe addresses given as `busy` and on the roofprof that made it,
// so a second run of the same program neither plans nor emits anything: it moves the kept
// trampolines and jumps to where this run mapped the module and its trampolines (rebased()).
// Entries live in DIR/native/ (DIR: default_cache_dir()), one file per (file, busy, roofprof),
// with addresses relative to the module's load bias; an entry whose key does not match in full,
// or that does not read back whole, is ignored (and replaced). The directory is kept under
// 512 MiB, the least recently written entries going first.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "native/counting.hpp"

namespace roofprof::native {

// What a run keeps of a module's plan (the sites themselves are in `emitted`).
struct ModulePatch {
  uint64_t sites = 0;
  uint64_t fp_insns = 0, uncounted_fp_insns = 0;
  std::vector<Uncounted> uncounted;
  Emitted emitted;  // empty when no site was patched
};
ModulePatch summary_of(ModulePlan plan);  // with nothing emitted yet

struct PatchKey {
  std::string text;  // the whole key, kept in the entry and compared on load
  std::filesystem::path file;
};

// nullopt when the file or roofprof's own executable cannot be identified (nothing is kept).
// `busy` in runtime addresses, `bias` the module's.
std::optional<PatchKey> patch_key(const std::filesystem::path& dir, const std::string& module_path,
                                  std::span<const uint64_t> busy, uint64_t bias);

// The entry with its addresses for a module loaded at `bias` (its trampolines' base as kept:
// relative to the module as in the run that made it).
std::optional<ModulePatch> load_patch(const PatchKey& key, uint64_t bias);
// Best effort: a cache that cannot be written is no error.
void store_patch(const PatchKey& key, const ModulePatch& patch, uint64_t bias);

}  // namespace roofprof::native
