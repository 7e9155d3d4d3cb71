#pragma once
// Samples -> functions: each sample's instruction and callers symbolized against the
// executable files the program had mapped (survey/sampler.hpp), counted per function: self
// (the instruction was in it) and total (it was in the call chain, once per sample).
#include <optional>
#include <string>
#include <vector>

#include "result/result.hpp"
#include "survey/sampler.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::survey {

// Functions with their samples, most self samples first (ties: most total, then name).
// `probe` and `source` are filled for the functions with a symbol.
result::Survey build_survey(const Samples& samples, symbolizer::ElfCache& cache);

// Said when samples that CFI could not unwind (Sample::unwound false) fell in functions that keep
// no frame pointer (their first instructions are not [endbr64] push %rbp; mov %rsp,%rbp): the
// kernel's frame-pointer walk loses their callers, so `total` is not inclusive there. nullopt
// when every such sample was unwound or fell in a function that keeps one.
std::optional<std::string> frame_pointer_note(const Samples& samples, symbolizer::ElfCache& cache);

// One note per stripped module (no symbol table, its own or a debug file's) that has an
// "[unknown in MODULE]" row in `survey`: "[unknown in pw.x] 19.7 %: pw.x has no symbol table
// (stripped...)..." naming the debug file and package that would name its functions.
std::vector<std::string> stripped_module_notes(const result::Survey& survey, symbolizer::ElfCache& cache);

// One note per module with samples in code it names no function for ("[unknown in MODULE]": a
// stripped library's internal functions): the named functions it was reached through (the first
// caller with a symbol, at most three, with their shares of those samples), on which a region
// measures it. None for a module whose unknown samples have no named caller.
std::vector<std::string> unknown_entry_notes(const Samples& samples, symbolizer::ElfCache& cache);

// How a function region of `symbol` in `elf` is measured (docs/survey.md): "patch" when its
// entry can be patched in place (the combined mode's in-process probe, probes/entry_patch.hpp),
// "agent" for an IFUNC (the agent hooks the implementation), "breakpoint" otherwise.
std::string probe_method(const symbolizer::ElfFile& elf, const symbolizer::Symbol& symbol);

}  // namespace roofprof::survey
