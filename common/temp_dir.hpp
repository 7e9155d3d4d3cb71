#pragma once
// A private directory under $TMPDIR (default /tmp), removed with everything in it when the
// owner is destroyed, which the signal policy guarantees for a run that is interrupted
// (supervisor/signals.hpp). One type for the agent's records, the emulation files,
// selftest's work and the scripted PMU's sysfs tree; temp_root() is also where an output file
// that cannot be written is saved instead (common/output_file.hpp).
#include <string>

namespace roofprof {

// Where temporary files go: $TMPDIR, or /tmp when it is unset or empty.
std::string temp_root();

class TempDir {
 public:
  // $TMPDIR/<prefix>-XXXXXX. `what`: for the error (UserError) when it cannot be created.
  TempDir(const std::string& prefix, const std::string& what);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  // Leave the directory in place (for inspection) and say where on stderr.
  void keep() { keep_ = true; }

 private:
  std::string path_;
  bool keep_ = false;
};

}  // namespace roofprof
