#pragma once
// The terminal table of `roofprof report`: one row per region and per group of its calls.
#include <cstdio>
#include <string>

#include "report/model.hpp"
#include "report/text_table.hpp"

namespace roofprof::report {

// Headline, table, then notes (merges, roofs, approximations), abnormal closes and warnings.
std::string render_table(const Model& model);
// --compare: per region and group, each file's time, P and I and the ratio to the first file.
std::string render_compare_table(const Model& model);

// The table as cells: the text shown and the number behind it (for sorting in HTML).
struct Cell {
  std::string text;
  std::optional<double> value;
};
struct TableData {
  std::vector<TextTable::Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<bool> group_row;  // a group of the region above
};
TableData table_data(const Model& model);
// The lines under the table: abnormal closes, notes, warnings ("  note: ...").
std::string notes_block(const Model& model);

// Numbers as the table writes them ("-" when unknown).
std::string cell_or_dash(const std::optional<double>& v, std::string (*format)(double));

}  // namespace roofprof::report
