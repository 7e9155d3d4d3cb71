#include "report/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"

namespace roofprof::report {

void write_output(const std::string& path, const std::string& text, const char* what) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      int err = errno;
      std::remove(tmp.c_str());
      throw UserError(std::string("cannot write the ") + what + " '" + path +
                      "': " + std::strerror(err ? err : EIO));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw UserError(std::string("cannot write the ") + what + " '" + path + "': " + ec.message());
  }
}

}  // namespace roofprof::report
