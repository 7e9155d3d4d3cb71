#pragma once
// Samples -> functions: each sample's instruction and callers symbolized against the
// executable files the program had mapped (survey/sampler.hpp), counted per function: self
// (the instruction was in it) and total (it was in the call chain, once per sample).
#include <string>

#include "result/result.hpp"
#include "survey/sampler.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::survey {

// Functions with their samples, most self samples first (ties: most total, then name).
// `probe` and `source` are filled for the functions with a symbol.
result::Survey build_survey(const Samples& samples, symbolizer::ElfCache& cache);

// How a function region of `symbol` in `elf` is measured (docs/survey.md): "patch" when its
// entry can be patched in place (the combined mode's in-process probe, probes/entry_patch.hpp),
// "agent" for an IFUNC (the agent hooks the implementation), "breakpoint" otherwise.
std::string probe_method(const symbolizer::ElfFile& elf, const symbolizer::Symbol& symbol);

}  // namespace roofprof::survey
