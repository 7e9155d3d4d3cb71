// Result files on disk: atomic write, checked read.
#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "result/atomic_file.hpp"
#include "result/json_write.hpp"
#include "result/json_read.hpp"
#include "result/result.hpp"

namespace roofprof::result {

void write_atomic(const Run& run, const OutputTarget& target) {
  // ordered_json: the file lists members in schema order, which is easier to read.
  std::string text = build_json<nlohmann::ordered_json>(run).dump(2) + "\n";
  write_output(target, text, "result file", KeepPrevious::yes);
}

void write_atomic(const Run& run, const std::string& path) { write_atomic(run, check_output(path, "result file")); }

Run read_file(const std::string& path) { return parse_file_text(read_whole_file(path, "result file"), path); }

Run parse_file_text(const std::string& text, const std::string& path) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    throw UserError("result file '" + path +
                    "' is empty (was roofprof killed while writing it?); re-run the measurement");
  check_json_depth(text, "result file '" + path + "'", "re-run the measurement or check that it is a roofprof result");
  try {
    return parse_result_text(text);
  } catch (const nlohmann::json::parse_error& e) {
    const bool truncated = e.byte >= text.size();
    throw UserError("result file '" + path + "' is not valid JSON" +
                    (truncated ? " (it ends too early: truncated?)"
                               : " (error at byte " + std::to_string(e.byte) + ")") +
                    "; re-run the measurement or check that it is a roofprof result");
  } catch (const nlohmann::json::exception& e) {  // e.g. a number that overflows a double
    throw UserError("result file '" + path + "' is not a valid result (" + std::string(e.what()).substr(0, 120) +
                    "); re-run the measurement or check that it is a roofprof result");
  } catch (const UserError& e) {
    throw UserError("result file '" + path + "': " + e.what());
  }
}

std::vector<Run> read_files(const std::vector<std::string>& paths) {
  std::vector<std::optional<Run>> runs(paths.size());
  std::vector<std::exception_ptr> errors(paths.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next.fetch_add(1)) < paths.size();) {
      try {
        runs[i] = read_file(paths[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const size_t threads =
      std::min<size_t>(paths.size(), std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  std::vector<Run> out;
  out.reserve(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);
    out.push_back(std::move(*runs[i]));
  }
  return out;
}

}  // namespace roofprof::result
