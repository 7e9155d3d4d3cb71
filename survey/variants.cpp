#include "survey/variants.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "survey/profile.hpp"
#include "survey/select.hpp"

namespace roofprof::survey {

namespace {

// Words that name an instruction set or a CPU in the kernels of libraries that dispatch at run
// time: x86 extensions (glibc's and FFTW's suffixes) and OpenBLAS's DYNAMIC_ARCH core names.
constexpr const char* kDispatchWords[] = {
    "sse",       "sse2",       "sse3",       "ssse3",      "sse4",       "sse41",     "sse42",     "avx",
    "avx2",      "avx512",     "avx512f",    "avx512bw",   "avx512dq",   "avx512vl",  "avx512fp16", "evex",
    "evex256",   "evex512",    "fma",        "fma3",       "fma4",       "prescott",  "core2",     "penryn",
    "dunnington", "nehalem",   "sandybridge", "haswell",   "skylakex",   "cooperlake", "sapphirerapids", "atom",
    "nano",      "opteron",    "barcelona",  "bobcat",     "bulldozer",  "piledriver", "steamroller", "excavator",
    "zen",       "katmai",     "coppermine", "northwood",  "athlon",     "banias",    "yonah"};

bool is_dispatch_word(std::string word) {
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  return std::any_of(std::begin(kDispatchWords), std::end(kDispatchWords), [&](const char* w) { return word == w; });
}

bool all_digits(const std::string& w) {
  return !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) { return std::isdigit(c); });
}

}  // namespace

std::string dispatch_family(const std::string& symbol) {
  std::string out;
  bool any = false, last_star = false;
  size_t start = 0;
  while (start <= symbol.size()) {
    size_t end = symbol.find('_', start);
    if (end == std::string::npos) end = symbol.size();
    const std::string word = symbol.substr(start, end - start);
    // A number right after such a word is part of it: sse4_1, sse4_2.
    const bool star = is_dispatch_word(word) || (last_star && all_digits(word));
    if (star) any = true;
    if (!(star && last_star)) {
      if (start > 0) out += '_';
      out += star ? "*" : word;
    }
    last_star = star;
    start = end + 1;
  }
  return any ? out : "";
}

size_t add_dispatch_variants(result::Survey& s, symbolizer::ElfCache& cache) {
  using Key = std::pair<std::string, std::string>;  // (module, family or symbol)
  std::map<Key, Key> families;                      // -> the sampled function it came from
  std::set<Key> listed;
  for (const auto& f : s.functions) {
    listed.insert({f.module, f.symbol});
    if (!probeable(f)) continue;
    if (auto fam = dispatch_family(f.symbol); !fam.empty()) families.emplace(Key{f.module, fam}, Key{f.module, f.symbol});
  }
  std::set<std::string> modules;
  for (const auto& [key, sampled] : families) modules.insert(key.first);
  std::map<Key, std::vector<result::SurveyFunction>> variants;  // by the sampled function
  size_t added = 0;
  for (const auto& module : modules) {
    auto elf = cache.get(module);
    if (!elf) continue;
    for (const auto& sym : elf->functions()) {
      const std::string fam = dispatch_family(sym.name);
      if (fam.empty()) continue;
      auto it = families.find({module, fam});
      if (it == families.end() || !listed.insert({module, sym.name}).second) continue;
      result::SurveyFunction v;
      v.name = sym.demangled;
      v.symbol = sym.name;
      v.module = module;
      v.address = sym.value;
      v.source = elf->source_of(sym.value);
      v.probe = probe_method(*elf, sym);
      v.variant_of = it->second.second;
      variants[it->second].push_back(std::move(v));
      ++added;
    }
  }
  // Each sampled function's variants right after it, so they rank with it (the emulated run
  // takes the first functions only: run/survey_emul.cpp).
  std::vector<result::SurveyFunction> out;
  for (auto& f : s.functions) {
    auto it = variants.find({f.module, f.symbol});
    out.push_back(std::move(f));
    if (it == variants.end()) continue;
    for (auto& v : it->second) out.push_back(std::move(v));
  }
  s.functions = std::move(out);
  return added;
}

void drop_unreached_variants(result::Survey& s) {
  std::erase_if(s.functions, [](const result::SurveyFunction& f) { return f.variant_of && !f.region; });
}

}  // namespace roofprof::survey
