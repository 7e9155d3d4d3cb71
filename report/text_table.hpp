#pragma once
// A plain-text table: columns padded to their widest cell, two spaces apart.
#include <cstdio>
#include <string>
#include <vector>

namespace roofprof::report {

class TextTable {
 public:
  enum class Align { Left, Right };
  struct Column {
    std::string header;
    Align align = Align::Left;
  };

  explicit TextTable(std::vector<Column> columns) : columns_(std::move(columns)) {}
  // A row has one cell per column (missing cells are empty, extra cells are a bug).
  void add_row(std::vector<std::string> cells);
  // Header, then the rows; trailing blanks trimmed; each line starts with `indent`.
  std::string render(const std::string& indent = "") const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// Width on a terminal of UTF-8 text, counting one column per code point.
size_t display_width(const std::string& s);

}  // namespace roofprof::report
