#pragma once
// Modules mapped into a running process, and region specs resolved against them.
#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "regions/spec.hpp"
#include "symbolizer/elf_file.hpp"

namespace roofprof::symbolizer {

struct Mapping {  // one line of /proc/PID/maps
  uint64_t start = 0, end = 0, offset = 0;
  std::string perms;
  uint64_t inode = 0;
  std::string path;
};
std::vector<Mapping> read_maps(pid_t pid);

// A file mapped into a process. runtime address = bias + link-time address.
struct LoadedModule {
  std::string path;
  uint64_t bias = 0;
  uint64_t start = 0, end = 0;  // lowest and highest mapped address of the file
  std::shared_ptr<ElfFile> elf;
};

// Opens each file once.
class ElfCache {
 public:
  std::shared_ptr<ElfFile> get(const std::string& path);  // nullptr when not a readable ELF
 private:
  std::map<std::string, std::shared_ptr<ElfFile>> files_;
};

// The ELF files mapped in `pid` (skips [vdso], anonymous and non-ELF mappings), with their
// load bias computed from the mapping that holds the first PT_LOAD.
std::vector<LoadedModule> loaded_modules(pid_t pid, ElfCache& cache);

// One place a region starts or stops: a module and a link-time address there.
struct Site {
  std::string module;   // path
  uint64_t address = 0; // link-time
  std::string symbol;   // the symbol there (demangled), "" for line/address sites
  bool ifunc = false;   // the symbol is an IFUNC: `address` is its resolver (Symbol::ifunc)
};

// A function matching a pattern: all sites with that name (the same name in several modules,
// aliases at one address merged).
struct FunctionMatch {
  std::string name;  // demangled name as displayed
  std::vector<Site> sites;
};

// Function symbols matching `pattern` in `modules`. A pattern matches a symbol when it equals
// (or, when it has glob characters, glob-matches) the mangled name, the demangled name, or the
// demangled name without its parameter list ("ns::Solver::step" matches
// "ns::Solver::step(int)"). Symbols at one address in one module are aliases: one site.
std::vector<FunctionMatch> match_functions(std::string_view pattern, const std::vector<const ElfFile*>& modules);

// The inlined copies in `module` of the function `pattern` names, by the same rules (a plain
// name: globs never select inlined copies).
std::vector<const InlinedCopy*> match_inlined(std::string_view pattern, const ElfFile& module);

// Sites of a non-symbol location (FILE:LINE or address) in one module; empty when absent.
// For Kind::Symbol returns the entry sites of the matching functions.
std::vector<Site> resolve_location(const regions::Location& loc, const ElfFile& module);

// Names for "did you mean": every function's demangled name (without parameters) in modules.
std::vector<std::string> all_function_names(const std::vector<const ElfFile*>& modules);

}  // namespace roofprof::symbolizer
