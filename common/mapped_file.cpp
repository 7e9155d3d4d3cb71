#include "common/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace roofprof {

MappedFile::MappedFile(const std::string& path, Pages pages) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) {
    const int flags = MAP_PRIVATE | (pages == Pages::Populated ? MAP_POPULATE : 0);
    void* p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, flags, fd, 0);
    if (p != MAP_FAILED) data_ = {static_cast<const uint8_t*>(p), size_t(st.st_size)};
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  if (!data_.empty()) ::munmap(const_cast<uint8_t*>(data_.data()), data_.size());
}

}  // namespace roofprof
