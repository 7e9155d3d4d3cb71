#pragma once
// Separate debug information (Debian -dbgsym packages, `objcopy --only-keep-debug`), found as gdb
// finds it: by build-id and by .gnu_debuglink under the debug directories, then through
// debuginfod when DEBUGINFOD_URLS is set (docs/methodology.md, "Stripped binaries").
#include <libelf.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofprof::symbolizer {

// The GNU build-id of `elf` in lowercase hex, "" when it has none.
std::string build_id(Elf* elf);

// A path under /lib, /lib64, /lib32, /usr/lib, /usr/lib64 or /usr/lib32: a system library, not
// one of the program's own modules (probes::is_system_library; debuginfod is not asked for these).
bool in_system_library_dir(std::string_view path);

// The debug directories: ROOFPROF_DEBUG_DIRS (colon-separated, as gdb's debug-file-directory)
// when set and not empty, else /usr/lib/debug.
std::vector<std::string> debug_roots();

// The CRC32 (.gnu_debuglink's, zlib's polynomial) of the file at `path`; nullopt if unreadable.
std::optional<uint32_t> file_crc32(const std::string& path);

// What a search for the debug file of one ELF file looked for and found.
struct DebugSearch {
  std::string build_id;                 // "" when the file has none
  std::string build_id_path;            // ROOT/.build-id/xx/rest.debug under the first root
  std::string debuglink;                // the name .gnu_debuglink gives, "" without one
  std::optional<std::string> found;     // the debug file whose build-id (or CRC32) matches
  bool debuginfod_configured = false;   // DEBUGINFOD_URLS was set
  std::string debuginfod;               // why debuginfod was not asked or found nothing
};

// The debug file for the ELF file at `path`: by build-id under each root's .build-id/, then by
// .gnu_debuglink next to the file, in its .debug/ folder, or under each root followed by the
// file's folder; then `debuginfod-find debuginfo BUILD-ID` when DEBUGINFOD_URLS is set. A
// candidate whose build-id differs from the file's, or (by debuglink) whose CRC32 differs from
// the one the link records, is ignored.
DebugSearch search_debug_file(Elf* elf, const std::string& path, const std::vector<std::string>& roots,
                              bool use_debuginfod = true);

// search_debug_file(...).found under the one root `debug_root`, without debuginfod.
std::optional<std::string> find_debug_file(Elf* elf, const std::string& path,
                                           const std::string& debug_root = "/usr/lib/debug");

// "pw.x has no symbol table (stripped: only its N exported functions have names) and its debug
// file was not found (looked for /usr/lib/debug/.build-id/ab/cd.debug and pw.x.debug, its
// debuglink); install quantum-espresso-dbgsym (...)": what a user reads for a stripped file.
// `package` is the Debian package that installed the file ("" when unknown).
std::string stripped_message(const std::string& path, size_t exported, const DebugSearch& search,
                             const std::string& package);

// The Debian package that installed `path` (`dpkg -S`), "" when dpkg is absent or no package has it.
std::string owning_package(const std::string& path);

}  // namespace roofprof::symbolizer
