// The Valgrind tool's cache simulator (emul/tool/rp_cache.c), built for the host without Valgrind
// (roofprof_cache_model, tests/unit/CMakeLists.txt), checked access by access against a reference
// model written here from rp_cache.h's description: inclusive LRU levels, one line size,
// write-allocate, write-back with the write-backs charged when a line becomes dirty, non-temporal
// stores that invalidate every copy and count their bytes as DRAM writes. After every access all
// 2*n counters must be equal, and L1's most recently used way must be where, and in the form,
// rp_cache_l1_layout says (the inline fast path of the instrumentation relies on it).
//
// Every trace also runs with a non-inclusive (victim) last level, rp_cache_init's `victim_last`,
// modelled here from rp_cache.h's rules: levels 0 .. n-2 inclusive of each other; the last level
// holds only the lines level n-2 evicted, clean or dirty (write[n-1] at that eviction); a miss of
// level n-2 takes the line out of the last level with its dirty mark (read[n-1]) or from DRAM
// (read[n]); the last level's evictions remove nothing above; dirtying charges write[1 ..] down to
// the first dirty copy as before but never write[n-1].
//
// The reference is deliberately plain: a vector of {line, dirty} per set, most recently used
// first, lines found by scanning, moved to the front by rotation, sets chosen by `line % sets`.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// After the standard headers: the Valgrind headers define macros such as True and False.
extern "C" {
#include "emul/tool/rp_cache.h"
// tests/unit/emul/cache_model_stubs.c: frees what rp_cache_init allocated through VG_(malloc).
void rp_cache_stub_release_all(void);
}

namespace roofprof::emul {
namespace {

using u64 = ULong;  // rp_cache.c's counters and addresses
using Geometry = std::vector<RpCacheGeom>;

std::string describe(const Geometry& g) {
  std::ostringstream s;
  for (size_t k = 0; k < g.size(); ++k)
    s << (k ? "," : "") << "L" << k + 1 << "=" << g[k].size << ":" << g[k].assoc << ":" << g[k].line;
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// Reference model
// ---------------------------------------------------------------------------------------------

// Whether the last level is inclusive or a victim cache (rp_cache_init's `victim_last`).
enum class Mode { Inclusive, Victim };

const char* describe(Mode m) { return m == Mode::Victim ? "victim last level" : "inclusive"; }

class Reference {
 public:
  Reference(const Geometry& g, Mode mode)
      : counters(2 * g.size(), 0), line_(g.at(0).line), levels_(g.size()), victim_(mode == Mode::Victim) {
    if (victim_ && g.size() < 2) error_ = "a victim last level needs two levels at least";
    events.evictions.assign(g.size(), 0);
    for (size_t k = 0; k < g.size(); ++k) {
      levels_[k].ways = g[k].assoc;
      levels_[k].sets.resize(g[k].size / (g[k].assoc * g[k].line));
    }
  }

  void load(u64 a, u64 size) { access(a, size, false); }
  void store(u64 a, u64 size) { access(a, size, true); }

  void store_nt(u64 a, u64 size) {
    if (size == 0) return;
    for (u64 line = a / line_; line <= (a + size - 1) / line_; ++line)
      for (size_t k = 0; k < levels_.size(); ++k) {
        auto& s = set(k, line);
        auto it = find(s, line);
        if (it == s.end()) continue;
        events.dirty_dropped_by_nt += it->dirty;
        s.erase(it);  // dirty or not: its write-back was charged already
      }
    write(levels_.size()) += size;
  }

  void flush() {
    for (auto& l : levels_)
      for (auto& s : l.sets) s.clear();
  }

  bool in_l1(u64 line) { return find(set(0, line), line) != set(0, line).end(); }
  bool dirty_in_l1(u64 line) {
    auto it = find(set(0, line), line);
    return it != set(0, line).end() && it->dirty;
  }

  // Every line of an inclusive level k is also in level k+1 (in victim mode, up to level n-2), no
  // line of a victim last level is in any level above it, no set holds a line twice or more lines
  // than its ways; an empty string when so.
  std::string invariant_violation() {
    const size_t n = levels_.size();
    const size_t inclusive_below = victim_ ? n - 1 : n;  // levels 0 .. inclusive_below-1 are inclusive
    for (size_t k = 0; k < n; ++k)
      for (auto& s : levels_[k].sets) {
        if (s.size() > levels_[k].ways) return "a set of L" + std::to_string(k + 1) + " is over-full";
        for (const Copy& c : s) {
          const std::string where = "line " + std::to_string(c.line) + " of L" + std::to_string(k + 1);
          if (std::count_if(s.begin(), s.end(), [&c](const Copy& o) { return o.line == c.line; }) != 1)
            return where + " is twice in its set";
          if (k + 1 < inclusive_below && !holds(k + 1, c.line)) return where + " is not in L" + std::to_string(k + 2);
          if (victim_ && k == n - 1)
            for (size_t j = 0; j < k; ++j)
              if (holds(j, c.line)) return where + " (the victim level) is also in L" + std::to_string(j + 1);
        }
      }
    return error_;
  }

  // read[1], write[1], read[2], write[2], ... (rp_cache_init's order).
  std::vector<u64> counters;

  // What happened, so that the tests can tell that their traces exercise the model.
  struct Events {
    std::vector<u64> evictions;    // per level: a full set's LRU copy pushed out
    u64 back_invalidations = 0;    // copies above an evicted line removed (inclusion)
    u64 dirt_handed_down = 0;      // an eviction made the copy below dirty
    u64 dirtying_stopped = 0;      // a store found a dirty copy below L1 and stopped charging there
    u64 dirty_dropped_by_nt = 0;   // a non-temporal store dropped a dirty copy
    // Victim mode only:
    u64 victim_in_clean = 0;       // level n-2 evicted a clean line into the last level
    u64 victim_in_dirty = 0;       // ... a dirty one
    u64 victim_hits = 0;           // a miss of level n-2 found its line in the last level
    u64 victim_hits_dirty = 0;     // ... dirty, and moved the dirty mark up
    u64 dram_past_victim = 0;      // a miss of level n-2 went past the last level to DRAM
    u64 dirty_victim_stored = 0;   // a store found its L1 copy dirty as it came from the last level (n = 2)
  } events;

 private:
  struct Copy {
    u64 line;
    bool dirty;
  };
  using Set = std::vector<Copy>;  // most recently used first
  struct Level {
    u64 ways = 0;
    std::vector<Set> sets;
  };

  // Interface j = 1 .. n feeds level j-1 (0-based) from level j; interface n is DRAM.
  u64& read(size_t j) { return counters[2 * (j - 1)]; }
  u64& write(size_t j) { return counters[2 * (j - 1) + 1]; }

  Set& set(size_t k, u64 line) { return levels_[k].sets[line % levels_[k].sets.size()]; }
  bool holds(size_t k, u64 line) { return find(set(k, line), line) != set(k, line).end(); }
  bool victim_level(size_t k) const { return victim_ && k + 1 == levels_.size(); }
  static Set::iterator find(Set& s, u64 line) {
    return std::find_if(s.begin(), s.end(), [line](const Copy& c) { return c.line == line; });
  }

  void access(u64 a, u64 size, bool is_store) {
    if (size == 0) return;
    for (u64 line = a / line_; line <= (a + size - 1) / line_; ++line) touch(line, is_store);
  }

  void touch(u64 line, bool is_store) {
    Set& s = set(0, line);
    auto it = find(s, line);
    if (it != s.end()) {
      std::rotate(s.begin(), it, it + 1);
    } else {
      bring(0, line);
      if (is_store && s.front().dirty) ++events.dirty_victim_stored;  // only from a victim level
    }
    if (is_store && !s.front().dirty) {
      charge_dirtying(line);
      s.front().dirty = true;
    }
  }

  // `line` is not in level k: fetch it through interface k+1 (from level k+1, bringing it there
  // first if needed) and put it at MRU, evicting the LRU copy when the set is full.
  //   In victim mode, level n-2 takes the line out of the last level with its dirty mark (through
  // interface n-1) or, when it is not there, straight from DRAM (through interface n).
  void bring(size_t k, u64 line) {
    bool dirty = false;
    if (victim_level(k + 1)) {
      Set& below = set(k + 1, line);
      auto it = find(below, line);
      if (it != below.end()) {
        dirty = it->dirty;
        below.erase(it);
        ++events.victim_hits;
        events.victim_hits_dirty += dirty;
        read(k + 1) += line_;
      } else {
        ++events.dram_past_victim;
        read(levels_.size()) += line_;
      }
    } else if (k + 1 < levels_.size()) {
      Set& below = set(k + 1, line);
      auto it = find(below, line);
      if (it != below.end())
        std::rotate(below.begin(), it, it + 1);
      else
        bring(k + 1, line);
      read(k + 1) += line_;
    } else {
      read(k + 1) += line_;  // the last level, from DRAM
    }
    Set& s = set(k, line);
    s.insert(s.begin(), Copy{line, dirty});
    if (s.size() > levels_[k].ways) {
      Copy victim = s.back();
      s.pop_back();
      ++events.evictions[k];
      evicted(k, victim);
    }
  }

  // `victim` left level k: its copies above go too (inclusion); if any copy was dirty the copy
  // below becomes dirty. No traffic: the write-backs were charged when the lines became dirty.
  //   In victim mode, a line leaving the last level just goes (no copy is above it, its write-back
  // was charged), and one leaving level n-2 enters the last level, dirty if any copy was, counted
  // at interface n-1 either way.
  void evicted(size_t k, const Copy& victim) {
    if (victim_level(k)) return;
    bool dirty = victim.dirty;
    for (size_t j = 0; j < k; ++j) {
      Set& s = set(j, victim.line);
      auto it = find(s, victim.line);
      if (it != s.end()) {
        dirty = dirty || it->dirty;
        s.erase(it);
        ++events.back_invalidations;
      }
    }
    if (victim_level(k + 1)) {
      write(k + 1) += line_;
      (dirty ? events.victim_in_dirty : events.victim_in_clean)++;
      Set& below = set(k + 1, victim.line);
      if (find(below, victim.line) != below.end())
        error_ = "line " + std::to_string(victim.line) + " evicted into the victim level is there already";
      below.insert(below.begin(), Copy{victim.line, dirty});
      if (below.size() > levels_[k + 1].ways) {
        below.pop_back();
        ++events.evictions[k + 1];
      }
      return;
    }
    if (!dirty || k + 1 >= levels_.size()) return;
    Set& below = set(k + 1, victim.line);
    auto it = find(below, victim.line);
    if (it == below.end())
      error_ = "evicted line " + std::to_string(victim.line) + " has no copy below L" + std::to_string(k + 1);
    else
      it->dirty = true;
    ++events.dirt_handed_down;
  }

  // L1's copy of `line` becomes dirty: a write-back through interface 1, and through every
  // interface below which no dirty copy exists yet. A victim last level's interface is charged
  // when lines enter it, not here; it holds no copy of a line that L1 holds.
  void charge_dirtying(u64 line) {
    for (size_t j = 1; j <= levels_.size(); ++j) {  // interface j, above level j (0-based; DRAM at n)
      if (victim_level(j)) {
        if (holds(j, line)) error_ = "line " + std::to_string(line) + " is both in L1 and in the victim level";
        continue;
      }
      write(j) += line_;
      if (j == levels_.size()) return;
      auto it = find(set(j, line), line);
      if (it != set(j, line).end() && it->dirty) {
        ++events.dirtying_stopped;
        return;
      }
    }
  }

  u64 line_;
  std::vector<Level> levels_;
  bool victim_;
  std::string error_;
};

// ---------------------------------------------------------------------------------------------
// Running a trace through both
// ---------------------------------------------------------------------------------------------

struct Op {
  enum Kind { Load, Store, StoreNt, Flush } kind;
  u64 a = 0, size = 0;
};

std::string describe(const Op& op) {
  static const char* names[] = {"load", "store", "store_nt", "flush"};
  std::ostringstream s;
  s << names[op.kind];
  if (op.kind != Op::Flush) s << " 0x" << std::hex << op.a << std::dec << " size " << op.size;
  return s.str();
}

std::string describe(const std::vector<u64>& c) {
  std::ostringstream s;
  for (size_t j = 0; j + 1 < c.size(); j += 2)
    s << (j ? " " : "") << "r" << j / 2 + 1 << "=" << c[j] << " w" << j / 2 + 1 << "=" << c[j + 1];
  return s.str();
}

// rp_cache.c has one global hierarchy: one Harness at a time.
class Harness {
 public:
  explicit Harness(const Geometry& g, Mode mode = Mode::Inclusive)
      : geometry_(g), mode_(mode), ref_(g, mode), sim_(2 * g.size(), 0) {
    const HChar* problem = rp_cache_check(g.data(), int(g.size()));
    EXPECT_EQ(problem, nullptr) << describe(g) << ": " << problem;
    rp_cache_stub_release_all();  // the previous hierarchy's ways
    rp_cache_init(g.data(), int(g.size()), mode == Mode::Victim ? True : False, sim_.data());
    has_layout_ = rp_cache_l1_layout(&ways_, &set_bits_, &shift_);
    EXPECT_EQ(rp_cache_line_size(), g[0].line);
  }
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  bool has_layout() const { return has_layout_; }
  const std::vector<u64>& counters() const { return sim_; }
  Reference& reference() { return ref_; }

  // Applies `op` to the simulator and the reference and compares them. False, after reporting a
  // failure, at the first difference: the caller stops its trace there.
  bool step(const Op& op, size_t index) {
    switch (op.kind) {
      case Op::Load:
        rp_cache_load(op.a, op.size);
        ref_.load(op.a, op.size);
        break;
      case Op::Store:
        rp_cache_store(op.a, op.size);
        ref_.store(op.a, op.size);
        break;
      case Op::StoreNt:
        rp_cache_store_nt(op.a, op.size);
        ref_.store_nt(op.a, op.size);
        break;
      case Op::Flush:
        rp_cache_flush();
        ref_.flush();
        break;
    }
    if (sim_ != ref_.counters) {
      ADD_FAILURE() << describe(geometry_) << " " << describe(mode_) << ", access " << index << " (" << describe(op)
                    << "):\n  rp_cache:  "
                    << describe(sim_) << "\n  reference: " << describe(ref_.counters);
      return false;
    }
    return check_mru(op, index);
  }

  // Runs `trace`; false at the first difference. Checks the reference's invariants (inclusion,
  // and in victim mode a last level disjoint from the levels above) every `check_every` accesses
  // (it scans every level).
  bool run(const std::vector<Op>& trace, size_t check_every = 256) {
    for (size_t i = 0; i < trace.size(); ++i) {
      if (!step(trace[i], i)) return false;
      if ((i + 1) % check_every == 0 || i + 1 == trace.size()) {
        std::string v = ref_.invariant_violation();
        if (!v.empty()) {
          ADD_FAILURE() << describe(geometry_) << " " << describe(mode_) << ", after access " << i
                        << ": reference model broken: " << v;
          return false;
        }
      }
    }
    return true;
  }

 private:
  // rp_cache.h: after a load or store within one line, that line is L1's MRU way of its set, at
  // ways + (a & set_bits) shifted by `shift`, holding the line's address with the bits below
  // the line size all set when dirty and all clear when clean.
  bool check_mru(const Op& op, size_t index) {
    const u64 line = geometry_[0].line;
    const u64 last = op.a + op.size - 1;
    if (!has_layout_ || (op.kind != Op::Load && op.kind != Op::Store) || op.size == 0 || op.a / line != last / line)
      return true;
    u64 offset = op.a & set_bits_;
    offset = shift_ >= 0 ? offset << shift_ : offset >> -shift_;
    const u64 way = *reinterpret_cast<const ULong*>(ways_ + offset);
    const bool dirty = ref_.dirty_in_l1(last / line);
    const u64 expected = (last / line) * line + (dirty ? line - 1 : 0);
    // The inline tests of the instrumentation, as rp_cache.h states them.
    const bool load_fast = (way ^ last) < line, store_fast = way == (last | (line - 1));
    if (way != expected || !load_fast || store_fast != dirty || !ref_.in_l1(last / line)) {
      ADD_FAILURE() << describe(geometry_) << " " << describe(mode_) << ", access " << index << " ("
                    << describe(op) << "): L1 MRU way 0x" << std::hex << way << ", expected 0x" << expected << std::dec
                    << " (dirty in the reference: " << dirty << ")";
      return false;
    }
    return true;
  }

  Geometry geometry_;
  Mode mode_;
  Reference ref_;
  std::vector<u64> sim_;  // rp_cache.c writes here
  bool has_layout_ = false;
  Addr ways_ = 0;
  ULong set_bits_ = 0;
  Int shift_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Traces
// ---------------------------------------------------------------------------------------------

// Random accesses in phases: each phase works on one span (around some level's capacity, or
// tiny) at one of a few bases, uniformly at random, as a strided stream, or at random with half
// of the accesses to one of four hot lines (which stay in L1 while the levels below see them age
// and evict them: back-invalidation of live, often dirty, L1 copies). Loads, stores and some
// non-temporal stores of 1 to 64 bytes, aligned or not; before one phase in eight, a flush
// (unless `flushes` is false). A phase is at most a sixteenth of the trace.
std::vector<Op> random_trace(const Geometry& g, u64 seed, size_t count, bool flushes = true) {
  std::mt19937_64 rng(seed);
  auto uniform = [&rng](u64 lo, u64 hi) { return std::uniform_int_distribution<u64>(lo, hi)(rng); };
  const u64 line = g[0].line;
  std::vector<u64> spans{4 * line};
  for (const auto& l : g)
    for (u64 s : {l.size / 2, l.size - 3 * line, l.size, l.size + l.size / 4}) spans.push_back(std::max(s, line));
  spans.push_back(2 * g.back().size);
  const u64 l1_sets = g[0].size / (g[0].assoc * line);
  const u64 strides[] = {8, line / 2 ? line / 2 : 1, line, 3 * line, l1_sets * line};
  const u64 sizes[] = {1, 2, 4, 8, 8, 8, 16, 32, 64};

  std::vector<Op> trace;
  trace.reserve(count);
  while (trace.size() < count) {
    const u64 span = spans[uniform(0, spans.size() - 1)];
    const u64 base = uniform(1, 4) * (u64(1) << 32) + uniform(0, 3) * 4096;
    const u64 pattern = uniform(0, 2);  // uniform, stream, uniform and hot lines
    const u64 hot = base + span + uniform(1, 3) * 4096;
    const u64 stride = strides[uniform(0, 4)];
    const size_t length = std::min<size_t>({count - trace.size(), count / 16 + 50, uniform(50, 2 * span / line + 50)});
    const u64 store_percent = uniform(0, 3) * 20;  // read-only to mostly stores
    u64 offset = uniform(0, span - 1);
    if (uniform(0, 7) == 0 && flushes) trace.push_back(Op{Op::Flush});
    for (size_t i = 0; i < length; ++i) {
      u64 size = uniform(0, 9) == 9 ? uniform(1, 64) : sizes[uniform(0, 8)];
      u64 a;
      if (pattern == 2 && uniform(0, 1)) {
        a = hot + uniform(0, 3) * line + uniform(0, line - 1);
      } else {
        offset = pattern == 1 ? (offset + stride) % span : uniform(0, span - 1);
        a = base + offset;
      }
      if (uniform(0, 1)) a &= ~(std::bit_floor(size) - 1);  // naturally aligned, half of the time
      const u64 r = uniform(0, 99);
      Op::Kind kind = r < 3 ? Op::StoreNt : r < 3 + store_percent ? Op::Store : Op::Load;
      trace.push_back(Op{kind, a, size});
    }
  }
  trace.resize(count);
  return trace;
}

// C += A * B on n x n doubles, blocked by b, the way compiled code touches memory: C[i][j]
// loaded, A[i][k] and B[k][j] loaded for each k, C[i][j] stored. C is first cleared with
// non-temporal 64-byte stores (and a flush between the two, for the cold start).
std::vector<Op> blocked_matmul_trace(u64 n, u64 b) {
  const u64 bytes = n * n * 8;
  const u64 A = 0x10000000, B = A + bytes + 192, C = B + bytes + 320;  // a few lines apart, not sets apart
  std::vector<Op> t;
  for (u64 off = 0; off < bytes; off += 64) t.push_back(Op{Op::StoreNt, C + off, std::min<u64>(64, bytes - off)});
  t.push_back(Op{Op::Flush});
  auto at = [n](u64 m, u64 i, u64 j) { return m + (i * n + j) * 8; };
  for (u64 ii = 0; ii < n; ii += b)
    for (u64 jj = 0; jj < n; jj += b)
      for (u64 kk = 0; kk < n; kk += b)
        for (u64 i = ii; i < std::min(ii + b, n); ++i)
          for (u64 j = jj; j < std::min(jj + b, n); ++j) {
            t.push_back(Op{Op::Load, at(C, i, j), 8});
            for (u64 k = kk; k < std::min(kk + b, n); ++k) {
              t.push_back(Op{Op::Load, at(A, i, k), 8});
              t.push_back(Op{Op::Load, at(B, k, j), 8});
            }
            t.push_back(Op{Op::Store, at(C, i, j), 8});
          }
  return t;
}

// For each level: (ways + 1) lines of one set of that level visited cyclically (every access an
// LRU miss at that level), passes alternating loads and stores, then non-temporal stores to them;
// below L1, a hot line stored over and over (an L1 hit each time) between accesses to new lines
// of its set at that level, which pushes it out of that level and so out of L1. Then streams of
// 1.25 times each level's capacity, two passes each (read, then read-modify-write), with 32-byte
// accesses every 24 bytes (some straddle two lines), or for levels above 2 MiB (the default
// L3), to keep the trace short, every 64 bytes, each straddling two lines, and the second pass
// only stores.
std::vector<Op> cyclic_trace(const Geometry& g) {
  const u64 line = g[0].line;
  std::vector<Op> t;
  u64 base = u64(1) << 36;
  for (const auto& l : g) {
    const u64 sets = l.size / (l.assoc * line);
    for (int pass = 0; pass < 12; ++pass)
      for (u64 w = 0; w <= l.assoc; ++w)
        t.push_back(Op{pass % 2 ? Op::Store : Op::Load, base + w * sets * line + (pass % 4) * 8, 8});
    for (u64 w = 0; w <= l.assoc; ++w) t.push_back(Op{Op::StoreNt, base + w * sets * line, 16});
    if (&l != &g[0]) {
      const u64 hot = base + (l.assoc + 1) * sets * line;
      for (u64 w = 1; w <= 4 * (l.assoc + 1); ++w) {
        t.push_back(Op{Op::Store, hot + 8 * (w % 8), 8});
        t.push_back(Op{Op::Load, hot + w * sets * line, 8});
      }
    }
    base += u64(1) << 32;
  }
  for (const auto& l : g) {
    const u64 span = l.size + l.size / 4;
    const bool large = span > (u64(2) << 20);
    for (int pass = 0; pass < 2; ++pass)
      for (u64 off = large ? 40 : 0; off + 32 <= span; off += large ? 64 : 24) {
        if (pass == 0 || !large) t.push_back(Op{Op::Load, base + off, 32});
        if (pass == 1) t.push_back(Op{Op::Store, base + off, 32});
      }
    base += u64(1) << 32;
  }
  return t;
}

RpCacheGeom level(u64 sets, u64 ways, u64 line = 64) { return RpCacheGeom{sets * ways * line, ways, line}; }

// Small geometries (misses, evictions and back-invalidations everywhere): 1 to 4 levels, ways
// 1, 2, 3, 8, 12 and 16, set counts powers of two and not, L1 with a single set, levels no
// larger than the one above, line sizes 64, 32 and 16 (so that 64-byte accesses span up to five
// lines).
std::vector<Geometry> small_geometries() {
  return {
      {level(8, 2)},
      {level(1, 8)},
      {level(5, 3)},
      {level(4, 1), level(6, 3)},
      {level(3, 2), level(8, 8)},
      {level(16, 2), level(4, 8)},  // L2 the size of L1: back-invalidation on most L2 misses
      {level(4, 2), level(5, 3), level(12, 16)},
      {level(8, 12), level(16, 16), level(12, 16)},  // L3 smaller than L2
      {level(2, 2, 32), level(4, 3, 32), level(6, 8, 32), level(16, 12, 32)},
      {level(4, 4, 16), level(8, 8, 16), level(24, 8, 16), level(64, 16, 16)},
      {level(1, 1), level(2, 1), level(3, 2), level(7, 3)},
  };
}

Geometry default_geometry() { return {RpCacheGeom{48 << 10, 12, 64}, {1 << 20, 16, 64}, {32 << 20, 16, 64}}; }

Reference::Events& operator+=(Reference::Events& a, const Reference::Events& b) {
  a.evictions.resize(std::max(a.evictions.size(), b.evictions.size()));
  for (size_t k = 0; k < b.evictions.size(); ++k) a.evictions[k] += b.evictions[k];
  a.back_invalidations += b.back_invalidations;
  a.dirt_handed_down += b.dirt_handed_down;
  a.dirtying_stopped += b.dirtying_stopped;
  a.dirty_dropped_by_nt += b.dirty_dropped_by_nt;
  a.victim_in_clean += b.victim_in_clean;
  a.victim_in_dirty += b.victim_in_dirty;
  a.victim_hits += b.victim_hits;
  a.victim_hits_dirty += b.victim_hits_dirty;
  a.dram_past_victim += b.dram_past_victim;
  a.dirty_victim_stored += b.dirty_victim_stored;
  return a;
}

std::string describe(const Reference::Events& e) {
  std::ostringstream s;
  s << "evictions per level";
  for (u64 v : e.evictions) s << " " << v;
  s << ", back-invalidations " << e.back_invalidations << ", dirt handed down " << e.dirt_handed_down
    << ", dirtying charges stopped below L1 " << e.dirtying_stopped << ", dirty copies dropped by non-temporal stores "
    << e.dirty_dropped_by_nt << "; victim level: clean lines in " << e.victim_in_clean << ", dirty lines in "
    << e.victim_in_dirty << ", hits " << e.victim_hits << " (dirty " << e.victim_hits_dirty << "), DRAM fills past it "
    << e.dram_past_victim << ", stores to a dirty line from it " << e.dirty_victim_stored;
  return s.str();
}

// A trace only tests what it makes happen: expects evictions from every level, and among the
// inclusive levels (all of them, or in victim mode all but the last), when there are two or more,
// dirt handed down by evictions, dirtying charges stopped by a dirty copy below L1 and, unless
// `back` is false, back-invalidations; dirty copies dropped by non-temporal stores unless `nt` is
// false. In victim mode also clean and dirty lines entering the last level, hits there, fills from
// DRAM past it and, unless `victim_reuse` is false, evictions from the last level, hits there that
// move a dirty line up and, with two levels, stores to an L1 line that came dirty from it.
void expect_exercised(const Reference::Events& e, size_t levels, Mode mode, const std::string& what, bool nt = true,
                      bool back = true, bool victim_reuse = true) {
  SCOPED_TRACE(what + ", " + describe(mode) + ": " + describe(e));
  for (size_t k = 0; k < levels; ++k) {
    if (mode == Mode::Inclusive || victim_reuse || k + 1 < levels) {
      EXPECT_GT(e.evictions.at(k), 0u) << "L" << k + 1;
    }
  }
  if (nt) {
    EXPECT_GT(e.dirty_dropped_by_nt, 0u);
  }
  if (mode == Mode::Victim) {
    EXPECT_GT(e.victim_in_clean, 0u);
    EXPECT_GT(e.victim_in_dirty, 0u);
    EXPECT_GT(e.victim_hits, e.victim_hits_dirty);
    EXPECT_GT(e.dram_past_victim, 0u);
    if (victim_reuse) {
      EXPECT_GT(e.victim_hits_dirty, 0u);
    }
    if (levels == 2 && victim_reuse) {
      EXPECT_GT(e.dirty_victim_stored, 0u);
    }
  } else {
    EXPECT_EQ(e.victim_in_clean + e.victim_in_dirty + e.victim_hits + e.dram_past_victim + e.dirty_victim_stored, 0u);
  }
  const size_t inclusive = mode == Mode::Victim ? levels - 1 : levels;
  if (inclusive < 2) return;
  if (back) {
    EXPECT_GT(e.back_invalidations, 0u);
  }
  EXPECT_GT(e.dirt_handed_down, 0u);
  EXPECT_GT(e.dirtying_stopped, 0u);
}

// `only`, unless it is victim mode and the geometry has a single level.
std::vector<Mode> modes(const Geometry& g, Mode only) {
  if (only == Mode::Victim && g.size() < 2) return {};
  return {only};
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

TEST(CacheModel, ChecksGeometriesAsDocumented) {
  for (const auto& g : small_geometries()) EXPECT_EQ(rp_cache_check(g.data(), int(g.size())), nullptr) << describe(g);
  Geometry five(5, level(4, 2));
  EXPECT_NE(rp_cache_check(five.data(), 5), nullptr);
  EXPECT_NE(rp_cache_check(five.data(), 0), nullptr);
  Geometry bad_line{RpCacheGeom{48 * 8, 8, 48}};
  EXPECT_NE(rp_cache_check(bad_line.data(), 1), nullptr);
  Geometry mixed_lines{level(4, 2, 64), level(8, 2, 128)};
  EXPECT_NE(rp_cache_check(mixed_lines.data(), 2), nullptr);
  Geometry not_a_multiple{RpCacheGeom{1000, 8, 64}};
  EXPECT_NE(rp_cache_check(not_a_multiple.data(), 1), nullptr);
}

TEST(CacheModel, LayoutIsAvailableExactlyWhenL1HasAPowerOfTwoSetsAboveOne) {
  for (const auto& g : small_geometries())
    for (Mode mode : {Mode::Inclusive, Mode::Victim}) {
      if (mode == Mode::Victim && g.size() < 2) continue;
      Harness h(g, mode);
      const u64 sets = g[0].size / (g[0].assoc * g[0].line);
      EXPECT_EQ(h.has_layout(), sets > 1 && std::has_single_bit(sets)) << describe(g) << " " << describe(mode);
    }
  Harness h(default_geometry());
  EXPECT_TRUE(h.has_layout());
}

struct Expected {
  Op op;
  std::vector<u64> counters;  // r1 w1 r2 w2 ...
};

void expect_steps(Harness& h, const std::vector<Expected>& steps) {
  for (size_t i = 0; i < steps.size(); ++i) {
    ASSERT_TRUE(h.step(steps[i].op, i));
    ASSERT_EQ(h.counters(), steps[i].counters) << "step " << i << " (" << describe(steps[i].op) << ")";
  }
  EXPECT_EQ(h.reference().invariant_violation(), "");
}

// Worked by hand from rp_cache.h (L1: 2 sets x 1 way, L2: 1 set x 2 ways, 64-byte lines), so
// that the reference itself is checked against something independent of both models.
TEST(CacheModel, HandCountedTraceGivesTheWorkedOutCounters) {
  Harness h({level(2, 1), level(1, 2)});
  expect_steps(h, {
      {{Op::Store, 0, 8}, {64, 64, 64, 64}},         // line 0 from DRAM, dirtied: charged at both interfaces
      {{Op::Load, 128, 8}, {128, 64, 128, 64}},      // line 2 evicts dirty line 0 from L1: L2's copy dirty
      {{Op::Store, 0, 8}, {192, 128, 128, 64}},      // line 0 from L2 (dirty there): charged at interface 1 only
      {{Op::Load, 256, 8}, {256, 128, 192, 64}},     // line 4 evicts clean 2 from L2 and dirty 0 from L1
      {{Op::Load, 64, 8}, {320, 128, 256, 64}},      // line 1 evicts dirty 0 from L2: no traffic
      {{Op::Store, 32, 64}, {384, 256, 320, 192}},   // 0 (back-invalidating 4 from L1) and 1, both dirtied
      {{Op::StoreNt, 64, 16}, {384, 256, 320, 208}}, // line 1 dropped everywhere, 16 bytes to DRAM
      {{Op::Load, 64, 8}, {448, 256, 384, 208}},     // line 1 again from DRAM
      {{Op::Flush}, {448, 256, 384, 208}},
      {{Op::Load, 0, 8}, {512, 256, 448, 208}},      // line 0 again from DRAM, its dirt dropped by the flush
  });
}

// The same for a victim last level, worked by hand from rp_cache.h's rules. Lines are named by
// number (line k at address 64 k), c clean, d dirty, sets listed most recently used first.
TEST(CacheModel, HandCountedVictimTracesGiveTheWorkedOutCounters) {
  {
    SCOPED_TRACE("three levels");
    // L1: 2 sets x 1 way (even lines in set 0, odd in set 1), L2: 1 set x 2 ways, L3 (victim): 1 set x 2 ways.
    // Counters r1 w1 r2 w2 r3 w3; interface 2 feeds L2 from the victim L3, interface 3 is DRAM.
    Harness h({level(2, 1), level(1, 2), level(1, 2)}, Mode::Victim);
    expect_steps(h, {
        // 0 from DRAM into L2 (not into L3) and L1; dirtied: w1 and DRAM's w3, never w2. L2 [0c].
        {{Op::Store, 0, 8}, {64, 64, 0, 0, 64, 64}},
        // 2 from DRAM; it evicts dirty 0 from L1, so L2's copy of 0 becomes dirty. L2 [2c 0d].
        {{Op::Load, 128, 8}, {128, 64, 0, 0, 128, 64}},
        // 4 from DRAM; L2 evicts 0d into L3 (w2). L1 evicts clean 2. L2 [4c 2c], L3 [0d].
        {{Op::Load, 256, 8}, {192, 64, 0, 64, 192, 64}},
        // 6 from DRAM; L2 evicts 2c into L3 (w2, clean too). L2 [6c 4c], L3 [2c 0d].
        {{Op::Load, 384, 8}, {256, 64, 0, 128, 256, 64}},
        // 0 hits L3: moved up into L2 (r2), still dirty; L2 evicts 4c into L3. L2 [0d 6c], L3 [4c 2c], L1 [0c].
        {{Op::Load, 0, 8}, {320, 64, 64, 192, 256, 64}},
        // L1's clean copy of 0 dirtied: w1; L2's copy is dirty, so nothing below (no second DRAM write).
        {{Op::Store, 0, 8}, {320, 128, 64, 192, 256, 64}},
        // 1 from DRAM into L1's set 1; L2 evicts 6c into L3, which evicts 2 (nothing above). L2 [1c 0d], L3 [6c 4c].
        {{Op::Load, 64, 8}, {384, 128, 64, 256, 320, 64}},
        // 4 from L3 (r2); L2 evicts 0, back-invalidating L1's dirty copy, into L3 dirty (w2). L2 [4c 1c], L3 [0d 6c].
        {{Op::Load, 256, 8}, {448, 128, 128, 320, 320, 64}},
        // 0 from L3 again (r2), dirty into L2; L2 evicts 1c into L3 (w2) and from L1's set 1; L1 evicts clean 4.
        // L1's copy of 0 comes clean and is dirtied: w1 only. L2 [0d 4c], L3 [1c 6c].
        {{Op::Store, 0, 8}, {512, 192, 192, 384, 320, 64}},
        // 1 dropped from L3, 16 bytes to DRAM. L3 [6c].
        {{Op::StoreNt, 64, 16}, {512, 192, 192, 384, 320, 80}},
        // 1 from DRAM; L2 evicts 4c into L3. L2 [1c 0d], L3 [4c 6c].
        {{Op::Load, 64, 8}, {576, 192, 192, 448, 384, 80}},
    });
  }
  {
    SCOPED_TRACE("two levels");
    // L1: 2 sets x 1 way, L2 (victim): 1 set x 2 ways. Counters r1 w1 r2 w2; interface 1 feeds L1
    // from the victim L2, interface 2 is DRAM.
    Harness h({level(2, 1), level(1, 2)}, Mode::Victim);
    expect_steps(h, {
        // 0 from DRAM into L1 only; dirtied: DRAM's w2 only.
        {{Op::Store, 0, 8}, {0, 0, 64, 64}},
        // 2 from DRAM; L1 evicts 0d into L2 (w1). L2 [0d].
        {{Op::Load, 128, 8}, {0, 64, 128, 64}},
        // 0 from L2 (r1) with its dirty mark, so the store charges nothing; L1 evicts 2c into L2 (w1). L2 [2c].
        {{Op::Store, 0, 8}, {64, 128, 128, 64}},
        // 1 from DRAM into L1's empty set 1.
        {{Op::Load, 64, 8}, {64, 128, 192, 64}},
        // 4 from DRAM; L1 evicts 0d into L2 (w1). L2 [0d 2c].
        {{Op::Load, 256, 8}, {64, 192, 256, 64}},
        // 6 from DRAM; L1 evicts 4c into L2 (w1), which evicts 2. L2 [4c 0d].
        {{Op::Load, 384, 8}, {64, 256, 320, 64}},
        // 2 from DRAM; L1 evicts 6c into L2 (w1), which evicts 0d (its write-back charged at step 0). L2 [6c 4c].
        {{Op::Load, 128, 8}, {64, 320, 384, 64}},
        // 0 from DRAM, clean; L1 evicts 2c into L2 (w1). Dirtied: w2. L2 [2c 6c].
        {{Op::Store, 0, 8}, {64, 384, 448, 128}},
    });
  }
}

void random_traces_on_small_geometries(Mode only) {
  for (const auto& g : small_geometries())
    for (Mode mode : modes(g, only)) {
      Reference::Events events;
      for (u64 seed : {1, 2, 3, 4}) {
        SCOPED_TRACE(describe(g) + ", " + describe(mode) + ", seed " + std::to_string(seed));
        Harness h(g, mode);
        if (!h.run(random_trace(g, seed, 20000))) return;
        events += h.reference().events;
      }
      expect_exercised(events, g.size(), mode, describe(g));
    }
}

TEST(CacheModel, RandomTracesMatchTheReferenceOnSmallGeometries) { random_traces_on_small_geometries(Mode::Inclusive); }

TEST(CacheModel, RandomTracesMatchTheReferenceOnSmallGeometriesWithAVictimLastLevel) {
  random_traces_on_small_geometries(Mode::Victim);
}

// Filling 32 MiB takes half a million accesses: the random part starts after a stream of stores
// over 1.25 times L3 and does not flush, so that its accesses beyond L3's contents evict from it.
// Back-invalidations of live L1 lines are rare at this size (a hot line leaves L2 after some 16K
// L2 misses): CyclicStreamsLongerThanTheWaysMatchTheReference makes them on purpose.
void random_traces_on_the_default_geometry(Mode mode, size_t random) {
  const Geometry g = default_geometry();
  std::vector<Op> trace;
  for (u64 off = 0; off < g[2].size + g[2].size / 4; off += 64) trace.push_back(Op{Op::Store, (u64(7) << 32) + off, 8});
  const auto tail = random_trace(g, 7, random, false);
  trace.insert(trace.end(), tail.begin(), tail.end());
  Harness h(g, mode);
  EXPECT_TRUE(h.run(trace, 1 << 30));
  expect_exercised(h.reference().events, g.size(), mode, describe(g), true, false);
}

TEST(CacheModel, RandomTracesMatchTheReferenceOnTheDefaultGeometry) {
  random_traces_on_the_default_geometry(Mode::Inclusive, 800'000);
}

// L2's victims fill the 32 MiB L3 during the stream of stores: the random part then misses L2 and
// hits L3 (dirty lines moving up) or misses it.
TEST(CacheModel, RandomTracesMatchTheReferenceOnTheDefaultGeometryWithAVictimLastLevel) {
  random_traces_on_the_default_geometry(Mode::Victim, 200'000);
}

// L1 too large for rp_cache.c's static array (its ways on the heap; 9 ways padded to 16), L2
// with 768 sets, hardly larger than L1; inclusive, then L2 a victim cache.
TEST(CacheModel, RandomTracesMatchTheReferenceWithALargeL1) {
  const Geometry g{level(1024, 9), level(768, 16)};
  for (Mode mode : {Mode::Inclusive, Mode::Victim}) {
    Harness h(g, mode);
    EXPECT_TRUE(h.has_layout());
    EXPECT_TRUE(h.run(random_trace(g, 11, 300'000), 1 << 30));
    expect_exercised(h.reference().events, g.size(), mode, describe(g));
  }
}

void blocked_matrix_multiply(Mode mode) {
  for (const auto& g : {Geometry{level(8, 4), level(16, 8), level(64, 6)}, Geometry{level(16, 2), level(24, 8)},
                        Geometry{level(2, 12), level(8, 16), level(12, 16), level(32, 16)}}) {
    Reference::Events events;
    for (u64 block : {8, 40}) {  // blocked, and not
      SCOPED_TRACE(describe(g) + ", " + describe(mode) + ", block " + std::to_string(block));
      Harness h(g, mode);
      if (!h.run(blocked_matmul_trace(40, block))) return;
      events += h.reference().events;
    }
    // C's cleared lines are flushed before they are used; hot lines rarely outlive their copies below.
    // With a victim last level the matrices (600 lines) fit in the last two levels of the first and
    // the last geometry, and C's dirty lines seldom come back from the last level: the random and
    // cyclic traces make those happen.
    expect_exercised(events, g.size(), mode, describe(g), false, false, false);
  }
}

TEST(CacheModel, BlockedMatrixMultiplyMatchesTheReference) { blocked_matrix_multiply(Mode::Inclusive); }

TEST(CacheModel, BlockedMatrixMultiplyMatchesTheReferenceWithAVictimLastLevel) {
  blocked_matrix_multiply(Mode::Victim);
}

// The default geometry only with inclusive levels, to keep the test short: RandomTracesMatchThe-
// ReferenceOnTheDefaultGeometryWithAVictimLastLevel streams through it.
void cyclic_streams(Mode only) {
  std::vector<Geometry> geometries = small_geometries();
  if (only == Mode::Inclusive) geometries.push_back(default_geometry());
  for (const auto& g : geometries)
    for (Mode mode : modes(g, only)) {
      SCOPED_TRACE(describe(g) + ", " + describe(mode));
      Harness h(g, mode);
      if (!h.run(cyclic_trace(g), g.back().size > (1 << 20) ? 1 << 30 : 256)) return;
      expect_exercised(h.reference().events, g.size(), mode, describe(g), true);
    }
}

TEST(CacheModel, CyclicStreamsLongerThanTheWaysMatchTheReference) { cyclic_streams(Mode::Inclusive); }

TEST(CacheModel, CyclicStreamsLongerThanTheWaysMatchTheReferenceWithAVictimLastLevel) {
  cyclic_streams(Mode::Victim);
}

TEST(CacheModel, InitStartsAnEmptyHierarchyEachTime) {
  const Geometry g{level(4, 2), level(6, 3)};
  const auto trace = random_trace(g, 5, 5000);
  for (Mode mode : {Mode::Inclusive, Mode::Victim}) {
    SCOPED_TRACE(describe(mode));
    std::vector<u64> first;
    {
      Harness h(g, mode);
      ASSERT_TRUE(h.run(trace));
      first = h.counters();
    }
    {
      Harness other(default_geometry(), mode == Mode::Victim ? Mode::Inclusive : Mode::Victim);
      ASSERT_TRUE(other.run(random_trace(default_geometry(), 6, 2000)));
    }
    Harness again(g, mode);
    ASSERT_TRUE(again.run(trace));
    EXPECT_EQ(again.counters(), first);
  }
}

}  // namespace
}  // namespace roofprof::emul
