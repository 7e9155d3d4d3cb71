// The kernels' inner loops must not touch the stack: a spill would make them measure the
// load/store units instead of the arithmetic. Disassembles this test binary (which links every
// kernel) and checks each loop of each kernel.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace {

struct Line {
  unsigned long addr;
  std::string text;
};

struct Function {
  std::string name;
  std::vector<Line> lines;
};

std::vector<Function> disassemble_self() {
  std::vector<Function> out;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);  // not objdump's own
  if (ec) return out;
  const std::string cmd = "objdump -d --no-show-raw-insn -C '" + self.string() + "' 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  if (!p) return out;
  char buf[4096];
  while (fgets(buf, sizeof buf, p.get())) {
    std::string l(buf);
    if (l.size() > 3 && l.back() == '\n' && l[l.size() - 2] == ':' && l.find(" <") != std::string::npos) {
      out.push_back({l.substr(l.find(" <") + 2), {}});
    } else if (!out.empty()) {
      auto colon = l.find(":\t");
      if (colon == std::string::npos) continue;
      try {
        out.back().lines.push_back({std::stoul(l.substr(0, colon), nullptr, 16), l.substr(colon + 2)});
      } catch (const std::exception&) {
      }
    }
  }
  return out;
}

bool is_kernel(const std::string& name) {
  return name.find("roofprof::ceilings::(anonymous namespace)::compute_body<") != std::string::npos ||
         name.find("roofprof::ceilings::(anonymous namespace)::vex_") != std::string::npos ||
         name.find("roofprof::ceilings::(anonymous namespace)::sse_") != std::string::npos;
}

// Backward jumps define the loops: [target, jump].
std::vector<std::pair<unsigned long, unsigned long>> loops(const Function& f) {
  std::vector<std::pair<unsigned long, unsigned long>> out;
  for (const auto& l : f.lines) {
    if (l.text.empty() || l.text[0] != 'j') continue;
    auto sp = l.text.find_first_of(" \t");
    if (sp == std::string::npos) continue;
    try {
      const unsigned long target = std::stoul(l.text.substr(sp), nullptr, 16);
      if (target <= l.addr) out.emplace_back(target, l.addr);
    } catch (const std::exception&) {
    }
  }
  return out;
}

TEST(CeilingsKernels, InnerLoopsDoNotSpill) {
  const auto fns = disassemble_self();
  if (fns.empty()) GTEST_SKIP() << "objdump is not available";
  int kernels = 0;
  for (const auto& f : fns) {
    if (!is_kernel(f.name)) continue;
    ++kernels;
    const auto ls = loops(f);
    EXPECT_FALSE(ls.empty()) << f.name;
    for (const auto& [lo, hi] : ls)
      for (const auto& l : f.lines) {
        if (l.addr < lo || l.addr > hi) continue;
        EXPECT_TRUE(l.text.find("(%rsp") == std::string::npos &&
                    l.text.find("(%rbp") == std::string::npos)
            << f.name << " spills in its loop: " << l.text;
      }
  }
  // 12 SSE2 + 4 FMA128 + 8 AVX2 + 8 AVX-512 compute bodies, 3 x 5 streaming kernels.
  EXPECT_EQ(kernels, 32 + 15);
}

}  // namespace
