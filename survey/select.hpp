#pragma once
// Which of a survey's functions it keeps (the table, the result file), and the regions
// `roofprof run --regions-from FILE` takes from that file.
#include <cstddef>
#include <string>
#include <vector>

#include "result/result.hpp"

namespace roofprof::survey {

enum class SortKey { Time, Work };  // self samples; self W (--backend emul)

struct Selection {
  size_t top = 20;           // at most this many functions
  double min_percent = 0;    // and only those with at least this share of the samples (self)
  SortKey sort = SortKey::Time;
};

// Orders `s.functions` by `sort` (Work: self W, functions without one last; ties by samples)
// and keeps those `sel` selects.
void select_functions(result::Survey& s, const Selection& sel);

// A survey function a region can measure: it has a symbol and a probe.
bool probeable(const result::SurveyFunction& f);

// The --region specs for the probeable functions of a survey result read from `path` (in its
// order, each symbol once). Throws UserError when the file is no survey or names none.
std::vector<std::string> regions_from(const result::Run& run, const std::string& path);

}  // namespace roofprof::survey
