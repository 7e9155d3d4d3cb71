// Reading a result file without holding its whole JSON tree: nlohmann's parser callback sees
// each value as it completes; regions and groups are converted then and dropped from the tree.
// A 10^5-group file would otherwise need about ten times its size in JSON nodes.
#include <exception>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "result/json_read.hpp"

namespace roofprof::result {
namespace {

// Where the parser is: one frame per open object or array.
struct Frame {
  bool array = false;
  std::string key;   // objects: the member being read
  size_t index = 0;  // arrays: the element being read
};

class Streamer {
 public:
  bool on_event(int /*depth*/, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    switch (event) {
      case E::object_start:
        stack_.push_back({false, {}, 0});
        return true;
      case E::array_start:
        stack_.push_back({true, {}, 0});
        return true;
      case E::key:
        if (!stack_.empty()) stack_.back().key = parsed.get<std::string>();
        return true;
      case E::object_end:
      case E::array_end: {
        stack_.pop_back();
        bool keep = event == E::array_end || !convert(parsed);
        next_element();
        return keep;
      }
      case E::value:
        next_element();
        return true;
    }
    return true;
  }

  std::vector<Region> take_regions() { return std::move(regions_); }
  std::exception_ptr error() const { return error_; }

 private:
  void next_element() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  // The open containers are top-level object > "regions" array (> region object > "groups"
  // array when `group`): the object that just closed is a region (or a group).
  bool at(bool group) const {
    const size_t n = group ? 4 : 2;
    if (stack_.size() != n) return false;
    if (stack_[0].array || stack_[0].key != "regions" || !stack_[1].array) return false;
    return !group || (!stack_[2].array && stack_[2].key == "groups" && stack_[3].array);
  }
  // Converts and drops (true) a just-closed region or group; anything else stays in the tree.
  bool convert(const nlohmann::json& parsed) {
    const bool region = at(false), group = at(true);
    if (!region && !group) return false;
    if (error_) return true;
    try {
      const std::string path = "regions[" + std::to_string(stack_[1].index) + "]";
      if (group) {
        groups_.push_back(
            read_group_json(parsed, path + ".groups[" + std::to_string(stack_[3].index) + "]"));
      } else {
        Region r = read_region_json(parsed, path);
        r.groups = std::move(groups_);
        groups_.clear();
        regions_.push_back(std::move(r));
      }
    } catch (const UserError&) {
      error_ = std::current_exception();  // reported after the schema check
    }
    return true;
  }

  std::vector<Frame> stack_;
  std::vector<Region> regions_;
  std::vector<Group> groups_;  // of the region being read
  std::exception_ptr error_;
};

}  // namespace

Run parse_result_text(const std::string& text) {
  Streamer s;
  nlohmann::json doc = nlohmann::json::parse(
      text, [&s](int depth, nlohmann::json::parse_event_t e, nlohmann::json& parsed) {
        return s.on_event(depth, e, parsed);
      });
  if (s.error()) {
    read_document(doc, std::vector<Region>{});  // a wrong schema says so first
    std::rethrow_exception(s.error());
  }
  return read_document(doc, s.take_regions());
}

}  // namespace roofprof::result
