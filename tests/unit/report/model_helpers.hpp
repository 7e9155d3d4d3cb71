#pragma once
// Building report models from sample runs and the fixture files in tests/fixtures/report.
#include <string>
#include <vector>

#include "ceilings/store.hpp"
#include "report/figure.hpp"
#include "report/merge.hpp"
#include "report/model.hpp"
#include "result/result.hpp"

namespace roofprof::report::testing {

inline std::string fixture_path(const std::string& name) {
  return std::string(SOURCE_DIR) + "/tests/fixtures/report/" + name;
}

inline result::Run fixture_run(const std::string& name) {
  return result::read_file(fixture_path(name));
}

inline std::optional<FoundCeilings> fixture_ceilings() {
  return FoundCeilings{ceilings::load(fixture_path("ceilings.json")), "ceilings.json", {}};
}

// Inputs, the merge over them and the model, kept together (the model points into them).
struct Report {
  std::vector<Input> inputs;
  Merged merged;
  Model model;
};

inline std::unique_ptr<Report> report_of(std::vector<Input> inputs, ModelOptions options = {},
                                         bool compare = false) {
  auto r = std::make_unique<Report>();
  r->inputs = std::move(inputs);
  if (compare) {
    r->model = build_compare_model(r->inputs, options);
  } else {
    r->merged = merge(r->inputs);
    r->model = build_model(r->merged, options);
  }
  return r;
}

inline std::unique_ptr<Report> report_of(const result::Run& run, ModelOptions options = {}) {
  return report_of(std::vector<Input>{{"run.json", run}}, std::move(options));
}

inline ModelOptions with_ceilings(View view = {}) {
  ModelOptions o;
  o.view = view;
  o.ceilings = fixture_ceilings();
  return o;
}

}  // namespace roofprof::report::testing
