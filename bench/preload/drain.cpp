// bench_drain: runs a program with the agent preloaded and drains its record files while it
// runs, discarding the records (no replay). Isolates the agent's own cost per hooked call.
//   ROOFPROF_AGENT_REGIONS=... ROOFPROF_AGENT_EVENTS=... bench_drain AGENT_LIB PROGRAM [ARGS...]
// Prints the number of records drained on stderr.
#include <dirent.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "preload/env_format.h"
#include "preload/record_file.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_drain AGENT_LIB PROGRAM [ARGS...]\n");
    return 2;
  }
  char tmpl[] = "/tmp/roofprof-drain-XXXXXX";
  std::string dir = mkdtemp(tmpl);
  setenv("LD_PRELOAD", argv[1], 1);
  setenv(RP_ENV_AGENT_DIR, dir.c_str(), 1);
  setenv(RP_ENV_AGENT_CONSUMER, std::to_string(getpid()).c_str(), 1);
  pid_t child = fork();
  if (child == 0) {
    execv(argv[2], argv + 2);
    _exit(127);
  }
  unsetenv("LD_PRELOAD");
  std::map<std::string, std::unique_ptr<roofprof::preload::RecordFile>> files;
  size_t records = 0;
  auto drain = [&](bool final) {
    if (DIR* d = opendir(dir.c_str())) {
      while (dirent* e = readdir(d)) {
        std::string n = e->d_name;
        if (n.size() > 4 && n.substr(n.size() - 4) == RP_FILE_SUFFIX && !files.count(n))
          files[n] = roofprof::preload::RecordFile::open(dir + "/" + n);
      }
      closedir(d);
    }
    size_t got = 0;
    for (auto& [n, f] : files) got += f->drain([](const roofprof::preload::Record&) {}, final);
    records += got;
    return got;
  };
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0)
    if (drain(false) == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  drain(true);
  files.clear();
  std::filesystem::remove_all(dir);
  std::fprintf(stderr, "records %zu\n", records);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
