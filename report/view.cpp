#include "report/view.hpp"

#include "common/error.hpp"

namespace roofprof::report {

const char* name(Rw rw) {
  switch (rw) {
    case Rw::read: return "read";
    case Rw::write: return "write";
    case Rw::both: break;
  }
  return "both";
}

Rw parse_rw(const std::string& s) {
  if (s == "both") return Rw::both;
  if (s == "read") return Rw::read;
  if (s == "write") return Rw::write;
  throw UserError("--rw '" + s + "': expected both, read or write");
}

Units parse_units(const std::string& s) {
  if (s == "seconds") return Units::seconds;
  if (s == "cycles") return Units::cycles;
  throw UserError("--units '" + s + "': expected seconds or cycles");
}

std::string traffic_label(const View& v) {
  return v.rw == Rw::both ? v.level : v.level + " " + name(v.rw);
}

}  // namespace roofprof::report
