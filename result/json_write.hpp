#pragma once
// Internal: the writer for both JSON flavours. to_json() gives nlohmann::json (keys sorted);
// the file is written from nlohmann::ordered_json so that it reads in schema order.
#include <nlohmann/json.hpp>

#include "result/result.hpp"

namespace roofprof::result {

// J is nlohmann::json or nlohmann::ordered_json (explicitly instantiated in json_write.cpp).
// Throws std::invalid_argument when a number is NaN or infinite (a bug in the producer).
template <class J>
J build_json(const Run& run);

}  // namespace roofprof::result
