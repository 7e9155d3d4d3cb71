#include "report/hatchet.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "report/measures.hpp"

namespace roofprof::report {
namespace {

using nlohmann::ordered_json;

// Summed quantities of a node (a region, a group, or the calls below a frame).
struct Sums {
  uint64_t calls = 0;
  std::optional<double> w = 0.0, q = 0.0, t = 0.0;
  void add(const Sums& o) {
    calls += o.calls;
    auto plus = [](std::optional<double>& a, const std::optional<double>& b) { a = a && b ? std::optional(*a + *b) : std::nullopt; };
    plus(w, o.w), plus(q, o.q), plus(t, o.t);
  }
};

Sums sums_of(const Subject& s, const View& view) {
  return Sums{s.calls(), s.flops(), traffic(s.bytes(), view.level, view.rw), s.time_s()};
}

ordered_json number_or_null(const std::optional<double>& v) { return v ? ordered_json(*v) : ordered_json(nullptr); }

ordered_json metrics(const Sums& s) {
  std::optional<double> p, i;
  if (s.w && s.t && *s.t > 0) p = *s.w / *s.t;
  if (s.w && s.q && *s.q > 0) i = *s.w / *s.q;
  return {{"W", number_or_null(s.w)}, {"Q", number_or_null(s.q)}, {"T", number_or_null(s.t)},
          {"P", number_or_null(p)},   {"I", number_or_null(i)},   {"calls", s.calls}};
}

struct Node {
  std::string name;
  Sums sums;
  std::vector<std::unique_ptr<Node>> children;  // a frame's are never empty; a region's leaf has none
};

ordered_json to_json(const Node& n) {
  ordered_json kids = ordered_json::array();
  for (const auto& c : n.children) kids.push_back(to_json(*c));
  return {{"frame", {{"name", n.name}, {"type", "function"}}}, {"metrics", metrics(n.sums)}, {"children", kids}};
}

bool by_call_path(const result::Region& r) {
  for (const auto& g : r.groups)
    if (!g.call_path.empty()) return true;
  return false;
}

}  // namespace

ordered_json hatchet_literal(const result::Run& run, const View& view) {
  Node top;  // its children are the roots
  for (const auto& r : run.regions) {
    if (by_call_path(r)) {
      for (const auto& g : r.groups) {
        const Sums s = sums_of(Subject{&r, &g}, view);
        Node* at = &top;
        for (auto frame = g.call_path.rbegin(); frame != g.call_path.rend(); ++frame) {
          Node* next = nullptr;
          for (auto& c : at->children)
            if (c->name == *frame && !c->children.empty()) next = c.get();  // a frame, not a region's leaf
          if (!next) {
            at->children.push_back(std::make_unique<Node>(Node{*frame, Sums{}, {}}));
            next = at->children.back().get();
          }
          next->sums.add(s);
          at = next;
        }
        at->children.push_back(std::make_unique<Node>(Node{r.name, s, {}}));
      }
      continue;
    }
    auto node = std::make_unique<Node>(Node{r.name, sums_of(Subject{&r, nullptr}, view), {}});
    for (const auto& g : r.groups)
      node->children.push_back(std::make_unique<Node>(Node{r.name + " [" + g.key + "]", sums_of(Subject{&r, &g}, view), {}}));
    top.children.push_back(std::move(node));
  }
  ordered_json roots = ordered_json::array();
  for (const auto& c : top.children) roots.push_back(to_json(*c));
  return roots;
}

}  // namespace roofprof::report
