#pragma once
// Internal: the JSON -> Run reader in pieces, for reading a file region by region.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "result/result.hpp"

namespace roofprof::result {

// One region or group object; `path` names it in messages ("regions[3]").
Region read_region_json(const nlohmann::json& j, const std::string& path);
Group read_group_json(const nlohmann::json& j, const std::string& path);

// The document's top level; its regions are `regions_read` when given (the document's
// "regions" must then still be an array, usually emptied by the streaming parse).
Run read_document(const nlohmann::json& j, std::optional<std::vector<Region>> regions_read);

// Parses result-file text keeping at most one region (and one group) as a JSON tree at a
// time: each is converted as soon as its closing brace is read. Throws
// nlohmann::json::parse_error on bad JSON and UserError on a bad result (schema errors first).
Run parse_result_text(const std::string& text);

}  // namespace roofprof::result
