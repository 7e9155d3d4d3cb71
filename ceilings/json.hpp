#pragma once
// The ceilings JSON: `compute` {isa, precision, op, threads, gflops}, `bandwidth` {level, kind,
// threads, gbytes_per_s}, `latency` {level, ns}, each with its spread and context fields (see
// docs/ceilings.md). Unknown values are null.
#include <nlohmann/json.hpp>
#include <string>

#include "ceilings/types.hpp"

namespace roofprof::ceilings {

inline constexpr const char* kSchema = "roofprof.ceilings/1";

nlohmann::json to_json(const Ceilings& c);

// Throws UserError (naming `origin`) if the document is not a ceilings file of this schema.
Ceilings from_json(const nlohmann::json& j, const std::string& origin);
// from_json of the text of a file: UserError (one line) for anything but a valid file.
Ceilings parse(const std::string& text, const std::string& origin);

}  // namespace roofprof::ceilings
