// Result files on disk: atomic write, checked read.
#include <string>

#include "common/error.hpp"
#include "result/atomic_file.hpp"
#include "result/json_write.hpp"
#include "result/json_read.hpp"
#include "result/result.hpp"

namespace roofprof::result {

void write_atomic(const Run& run, const std::string& path) {
  // ordered_json: the file lists members in schema order, which is easier to read.
  std::string text = build_json<nlohmann::ordered_json>(run).dump(2) + "\n";
  replace_file_atomically(path, text, "result file");
}

Run read_file(const std::string& path) {
  std::string text = read_whole_file(path, "result file");
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UserError("result file '" + path +
                    "' is empty (was roofprof killed while writing it?); re-run the measurement");
  try {
    return parse_result_text(text);
  } catch (const nlohmann::json::parse_error& e) {
    const bool truncated = e.byte >= text.size();
    throw UserError("result file '" + path + "' is not valid JSON" +
                    (truncated ? " (it ends too early: truncated?)"
                               : " (error at byte " + std::to_string(e.byte) + ")") +
                    "; re-run the measurement or check that it is a roofprof result");
  } catch (const UserError& e) {
    throw UserError("result file '" + path + "': " + e.what());
  }
}

}  // namespace roofprof::result
