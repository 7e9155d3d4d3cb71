#pragma once
// Everything a report shows, computed once and rendered by the table, the plots and the
// exports: one row per region (sorted by total time) followed by one row per group of its
// calls (sorted by their parameters, as a series), with the roofs when ceilings were found.
#include <optional>
#include <string>
#include <vector>

#include "report/job.hpp"
#include "report/measures.hpp"
#include "report/merge.hpp"
#include "report/roofs.hpp"
#include "report/view.hpp"
#include "signatures/user_spec.hpp"

namespace roofprof::report {

struct Row {
  int input = 0;                          // index into Model::inputs (compare mode), else 0
  Subject subject;
  Measures m;
  std::optional<double> expected_work;    // flops by a formula, over all calls of the row
  std::string expected_from;              // "2*m*n*k per call (--work)", "... (built-in formula)", "result"
  std::optional<double> x_lo, x_hi;       // q1 and q3 of I over the merged files (2+ files)
  bool approximate_stats = false;         // per-call quartiles mixed from several files
  std::optional<int> rank;                // a rank's own row (--per-rank), not the job's
};

struct Model {
  View view;
  std::string headline;                   // what was run (or merged)
  std::vector<std::string> inputs;        // file labels
  bool compare = false;                   // rows of each input kept apart
  std::optional<Roofs> roofs;
  std::vector<Row> rows;
  std::shared_ptr<const JobSummary> job;  // the rank files of one MPI job, else null
  std::vector<Row> rank_rows;             // --per-rank: each rank's regions (plotted only)
  std::vector<std::string> notes;         // one line each: merges, roofs, approximations
  std::vector<std::string> warnings;      // from the result files
  std::vector<std::string> abnormal;      // "dgemm_: 3 of 100 instances closed abnormally: ..."
};

struct ModelOptions {
  View view;
  std::optional<FoundCeilings> ceilings;
  std::vector<signatures::WorkFormula> work;  // --work
  bool per_rank = false;                      // rows of each rank of a job, for the plot
};

// One report over the merged files.
Model build_model(const Merged& merged, const ModelOptions& options);
// --compare: the files side by side (rows carry their input index).
Model build_compare_model(const std::vector<Input>& inputs, const ModelOptions& options);

}  // namespace roofprof::report
