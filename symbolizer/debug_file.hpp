#pragma once
// Separate debug information (Debian -dbgsym packages, `objcopy --only-keep-debug`).
#include <libelf.h>

#include <optional>
#include <string>

namespace roofprof::symbolizer {

// The GNU build-id of `elf` in lowercase hex, "" when it has none.
std::string build_id(Elf* elf);

// The debug file for the ELF file at `path`: by build-id under `debug_root`/.build-id, then by
// .gnu_debuglink next to the file, in its .debug/ folder, or under `debug_root`. A candidate
// whose build-id differs from the file's is ignored.
std::optional<std::string> find_debug_file(Elf* elf, const std::string& path,
                                           const std::string& debug_root = "/usr/lib/debug");

}  // namespace roofprof::symbolizer
