#include "report/text_table.hpp"

#include <algorithm>
#include <stdexcept>

namespace roofprof::report {

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;  // not a continuation byte
  return n;
}

void TextTable::add_row(std::vector<std::string> cells) {
  if (cells.size() > columns_.size())
    throw std::logic_error("TextTable::add_row: more cells than columns");
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render(const std::string& indent) const {
  std::vector<size_t> width(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    width[c] = display_width(columns_[c].header);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }
  auto line = [&](auto cell_of) {
    std::string out = indent;
    for (size_t c = 0; c < columns_.size(); ++c) {
      const std::string& cell = cell_of(c);
      std::string pad(width[c] - display_width(cell), ' ');
      if (c > 0) out += "  ";
      out += columns_[c].align == Align::Right ? pad + cell : cell + pad;
    }
    out.erase(out.find_last_not_of(' ') + 1);
    return out + "\n";
  };
  std::string out = line([&](size_t c) -> const std::string& { return columns_[c].header; });
  for (const auto& row : rows_) out += line([&](size_t c) -> const std::string& { return row[c]; });
  return out;
}

}  // namespace roofprof::report
