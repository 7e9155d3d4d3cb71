#pragma once
// The values of `survey`'s options that name one of a few choices, as words on the command line
// and as the enums the survey passes on: parsed once, where the options are read
// (cli/cmds/survey.cpp checks the word against the names here, then takes the enum).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "counters/backend_choice.hpp"
#include "survey/select.hpp"

namespace roofprof::survey {

// --unwind: cfi, each sample's stack copied and unwound with DWARF CFI (frame pointers where that
// fails); fp, the kernel's frame-pointer walk only (Sampler's copy_stacks false).
enum class Unwind { Cfi, Fp };

// The words each option takes, the default first: --backend auto|emul (sampled times only, or
// also one emulated run; counters' words), --sort time|work, --unwind cfi|fp.
const std::vector<std::string>& backend_names();
const std::vector<std::string>& sort_names();
const std::vector<std::string>& unwind_names();

// The value a word names; null when it names none.
std::optional<counters::BackendRequest> backend_named(std::string_view word);
std::optional<SortKey> sort_named(std::string_view word);
std::optional<Unwind> unwind_named(std::string_view word);

// The word of a value (its name above).
const char* to_string(SortKey key);
const char* to_string(Unwind unwind);

}  // namespace roofprof::survey
