#pragma once
// A module's file, mapped read-only: its bytes as the file holds
// them (native counting's plans and the entry patches' scan for jumps into an entry read these,
// not the tracee's memory: no copy of megabytes of code, no breakpoint or patch of ours in them).
#include <cstdint>
#include <span>
#include <string>

namespace roofprof::tracer {

class FileImage {
 public:
  explicit FileImage(const std::string& path);
  ~FileImage();
  FileImage(const FileImage&) = delete;
  FileImage& operator=(const FileImage&) = delete;
  bool ok() const { return !data_.empty(); }
  std::span<const uint8_t> bytes() const { return data_; }

 private:
  std::span<const uint8_t> data_;
};

}  // namespace roofprof::tracer
