#pragma once
// A whole file mapped read-only (MAP_PRIVATE), unmapped with the object: a module's bytes as its
// file holds them (native counting's plans, the entry patches' scan for jumps into an entry, the
// survey's unwinder) and a native patch kept between runs, read without a copy.
#include <cstdint>
#include <span>
#include <string>

namespace roofprof {

class MappedFile {
 public:
  enum class Pages { OnDemand, Populated };  // Populated: every page mapped in the one mmap call
  explicit MappedFile(const std::string& path, Pages pages = Pages::OnDemand);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool ok() const { return !data_.empty(); }  // false: unreadable or empty
  std::span<const uint8_t> bytes() const { return data_; }

 private:
  std::span<const uint8_t> data_;
};

}  // namespace roofprof
