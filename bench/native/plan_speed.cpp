// How long plan_module takes on a module as the tracer gives it (docs/benchmarks.md, "Native
// counting: planning a module"): the file's executable and other loaded segments, its function
// symbols. Reference in the same run: decoding the same functions' bytes once with the project's
// Capstone wrapper (probes/x86_decode.hpp) and nothing else.
//   bench_native_plan FILE...
#include <time.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "native/counting.hpp"
#include "probes/x86_decode.hpp"
#include "symbolizer/elf_file.hpp"

using namespace roofprof;

namespace {

struct Image {
  std::vector<uint8_t> file;
  std::vector<native::CodeRange> code, data;
  std::vector<native::Function> functions;
};

Image read_image(const std::string& path) {
  Image img;
  std::ifstream in(path, std::ios::binary);
  img.file.assign(std::istreambuf_iterator<char>(in), {});
  auto elf = symbolizer::ElfFile::open(path);
  for (const auto& seg : elf->segments()) {
    native::CodeRange r{seg.vaddr, std::span<const uint8_t>(img.file.data() + seg.offset, seg.filesz)};
    (seg.exec ? img.code : img.data).push_back(r);
  }
  for (const auto& s : elf->functions()) img.functions.push_back({s.value, s.size, s.name});
  return img;
}

// Wall and CPU seconds of a call (the CPU time is what the VM's other tenants cannot inflate).
struct Took {
  double wall = 0, cpu = 0;
};
double cpu_now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}
template <class F>
Took timed(F&& f) {
  const auto w0 = std::chrono::steady_clock::now();
  const double c0 = cpu_now();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count(), cpu_now() - c0};
}

// Linear Capstone decode of every function (each once, by start), skipping a byte where it fails.
uint64_t decode_all(const Image& img) {
  uint64_t n = 0, last_end = 0;
  for (const auto& f : img.functions) {
    if (f.start < last_end) continue;
    last_end = f.start + f.size;
    for (const auto& r : img.code) {
      if (f.start < r.address || f.start + f.size > r.address + r.bytes.size()) continue;
      const uint8_t* p = r.bytes.data() + (f.start - r.address);
      for (uint64_t off = 0; off < f.size;) {
        const cs_insn* in = probes::decode_x86(p + off, f.size - off, f.start + off);
        off += in ? in->size : 1;
        ++n;
      }
    }
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_native_plan FILE...\n");
    return kUserErrorExit;
  }
  for (int i = 1; i < argc; ++i) {
    try {
      const Image img = read_image(argv[i]);
      native::ModulePlan plan;
      const Took plan_t = timed([&] { plan = native::plan_module(img.code, img.functions, {}, img.data); });
      uint64_t insns = 0;
      const Took decode_t = timed([&] { insns = decode_all(img); });
      uint64_t code_bytes = 0;
      for (const auto& r : img.code) code_bytes += r.bytes.size();
      std::printf("%s: %.1f MiB code, %zu functions, %llu instructions\n  plan: %.3f s CPU (%.3f s wall), %zu sites, "
                  "%llu FP instructions, %llu of them uncounted, %llu trampoline bytes\n  Capstone decode alone: %.3f s CPU "
                  "(%.3f s wall)\n  plan / Capstone decode (CPU): %.2f\n",
                  argv[i], code_bytes / 1048576.0, img.functions.size(), (unsigned long long)insns, plan_t.cpu, plan_t.wall,
                  plan.sites.size(), (unsigned long long)plan.fp_insns, (unsigned long long)plan.uncounted_fp_insns,
                  (unsigned long long)plan.trampoline_bytes, decode_t.cpu, decode_t.wall, plan_t.cpu / decode_t.cpu);
      std::map<std::string, uint64_t> why;
      for (const auto& u : plan.uncounted) why[u.why.substr(0, u.why.find(" +"))] += u.fp_insns;
      for (const auto& [w, n] : why) std::printf("  uncounted: %llu FP instructions: %s\n", (unsigned long long)n, w.c_str());
    } catch (const UserError& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return kUserErrorExit;
    }
  }
}
