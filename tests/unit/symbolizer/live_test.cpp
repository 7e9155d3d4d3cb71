// Load bias on live processes: the fixture prints the runtime addresses of its own function
// and of a library function; bias + link-time value must equal them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "common/error.hpp"
#include "fixture_paths.hpp"
#include "symbolizer/modules.hpp"

namespace roofprof::symbolizer {
namespace {

using test::fixture;
using test::symbols_named;

// Starts `path`, reads its first output line, keeps it running until destroyed.
class LiveProcess {
 public:
  explicit LiveProcess(const std::string& path) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], 1);
      close(fds[0]);
      close(fds[1]);
      execl(path.c_str(), path.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    FILE* out = fdopen(fds[0], "r");
    char buf[256] = {};
    if (out && fgets(buf, sizeof buf, out)) line_ = buf;
    if (out) fclose(out);
  }
  ~LiveProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  pid_t pid() const { return pid_; }
  const std::string& line() const { return line_; }

 private:
  pid_t pid_ = -1;
  std::string line_;
};

const LoadedModule* module_named(const std::vector<LoadedModule>& mods, const std::string& path) {
  for (const auto& m : mods) {
    if (m.path == path) return &m;
  }
  return nullptr;
}

void check_bias(const std::string& exe, bool pie) {
  LiveProcess proc(exe);
  ASSERT_GT(proc.pid(), 0);
  uint64_t target = 0, lib_fn = 0;
  ASSERT_EQ(std::sscanf(proc.line().c_str(), "%lx %lx", &target, &lib_fn), 2) << proc.line();

  ElfCache cache;
  auto mods = loaded_modules(proc.pid(), cache);
  ASSERT_FALSE(mods.empty());
  EXPECT_EQ(mods[0].path, exe);  // the executable is mapped first
  const LoadedModule* main_mod = module_named(mods, exe);
  ASSERT_NE(main_mod, nullptr);
  if (pie) {
    EXPECT_NE(main_mod->bias, 0u);
  } else {
    EXPECT_EQ(main_mod->bias, 0u);
  }
  EXPECT_EQ(main_mod->bias % 4096, 0u);
  EXPECT_EQ(main_mod->bias + symbols_named(*main_mod->elf, "live_target")[0]->value, target);
  EXPECT_LE(main_mod->start, target);
  EXPECT_GT(main_mod->end, target);

  const LoadedModule* lib = module_named(mods, fixture("libsym_lib.so"));
  ASSERT_NE(lib, nullptr);
  if (pie) {  // a non-PIE executable sees the canonical PLT address instead
    EXPECT_EQ(lib->bias + symbols_named(*lib->elf, "symlib_api")[0]->value, lib_fn);
  }
  for (const auto& m : mods) {
    EXPECT_EQ(m.path.find('['), std::string::npos) << m.path;  // no [vdso], [stack], [heap]
    EXPECT_NE(m.elf, nullptr);
  }
  // The cache opened each file once.
  EXPECT_EQ(cache.get(exe), main_mod->elf);
}

TEST(LoadedModules, PieBias) { check_bias(fixture("sym_live_pie"), true); }

TEST(LoadedModules, NonPieBiasIsZero) { check_bias(fixture("sym_live_nopie"), false); }

TEST(LoadedModules, LibcIsFound) {
  LiveProcess proc(fixture("sym_live_pie"));
  ElfCache cache;
  auto mods = loaded_modules(proc.pid(), cache);
  bool libc = false;
  for (const auto& m : mods) libc = libc || m.path.ends_with("/libc.so.6");
  EXPECT_TRUE(libc);
}

TEST(LoadedModules, UnknownPidIsAUserError) {
  ElfCache cache;
  EXPECT_THROW(loaded_modules(999999999, cache), UserError);
}

TEST(ReadMaps, ParsesOwnMaps) {
  auto maps = read_maps(getpid());
  ASSERT_FALSE(maps.empty());
  bool stack = false;
  for (const auto& m : maps) {
    EXPECT_LT(m.start, m.end);
    EXPECT_EQ(m.perms.size(), 4u);
    stack = stack || m.path == "[stack]";
  }
  EXPECT_TRUE(stack);
}

TEST(ElfCache, NonElfIsNull) {
  ElfCache cache;
  EXPECT_EQ(cache.get("/nonexistent/roofprof"), nullptr);
  EXPECT_EQ(cache.get(std::string(SOURCE_DIR) + "/CMakeLists.txt"), nullptr);
}

}  // namespace
}  // namespace roofprof::symbolizer
