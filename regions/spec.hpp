#pragma once
// What the user asked to measure: function regions (--region) and span regions (--span).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::regions {

// A place in the program, as the user wrote it.
struct Location {
  enum class Kind { Symbol, FileLine, Address };
  Kind kind = Kind::Symbol;
  std::string symbol;     // Symbol: name or glob, mangled or demangled C++
  std::string file;       // FileLine: file name (matched on its trailing path components)
  unsigned line = 0;      // FileLine
  std::string module;     // Address: module basename ("" = the main executable)
  uint64_t address = 0;   // Address: link-time address in that module (as objdump shows it)
  std::string text;       // verbatim
};

enum class RegionKind { Function, Span };

struct RegionSpec {
  RegionKind kind = RegionKind::Function;
  std::string name;  // function: the symbol pattern; span: NAME
  Location start;    // function: the symbol; span: START
  Location stop;     // span only: STOP
  std::string text;  // verbatim
};

// The longest name or location a region may give (docs/methodology.md): longer ones are refused
// at once, before they are compared with every symbol of the program.
inline constexpr size_t kMaxNameBytes = 4096;

// Throws UserError (exit 2) with a one-line explanation on malformed input.
Location parse_location(std::string_view text);
RegionSpec parse_region(std::string_view text);  // --region NAME|GLOB
RegionSpec parse_span(std::string_view text);    // --span NAME=START..STOP

}  // namespace roofprof::regions
