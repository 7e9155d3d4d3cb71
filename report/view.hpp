#pragma once
// What a report shows: the memory level, read/write traffic, units, and which roofs.
#include <optional>
#include <string>

namespace roofprof::report {

enum class Rw { both, read, write };      // Q = read + write, read only, write only
enum class Units { seconds, cycles };     // P in flop/s, or in flop per cycle

struct View {
  std::string level = "DRAM";             // memory level of Q and I
  Rw rw = Rw::both;
  Units units = Units::seconds;
  std::optional<int> threads;             // roofs for this many threads; null: the most measured
  bool hierarchical = false;              // one point per memory level for each region
};

const char* name(Rw rw);                  // "both", "read", "write"
Rw parse_rw(const std::string& s);        // UserError on anything else
Units parse_units(const std::string& s);  // "seconds" | "cycles"
// "DRAM", "DRAM read", "DRAM write": how Q is named in headers.
std::string traffic_label(const View& v);

}  // namespace roofprof::report
