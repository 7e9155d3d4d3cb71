#include "emul/events.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

#include <fmt/format.h>

#include "common/error.hpp"
#include "emul/events_format.h"
#include "preload/record_format.h"

namespace roofprof::emul {

using regions::Boundary;
using regions::CloseReason;
using regions::Tid;

struct EventParser::File {
  std::string name;
  size_t lineno = 0;
  int state = 0;  // 0: magic, 1: pid line, 2: counters line, 3: events
  int pid = 0;
  std::map<Tid, std::vector<uint64_t>> threads;  // cumulative per thread
  std::vector<uint64_t> process;                 // cumulative for the process
  bool ended = false;                            // "Z" seen
  bool exec_pending = false;                     // "E" not followed by "e"
  std::map<uint64_t, std::vector<regions::RegionId>> agent_regions;  // "N" lines
};

// Cumulative counts of the file currently describing each pid: a thread's are current at its own
// lines, the process's at every line (the tool runs one thread at a time).
class EventParser::Counts : public regions::CountSource {
 public:
  explicit Counts(const size_t& n) : n_(n) {}
  std::map<int, File*> by_pid;
  CounterValues read_thread(int pid, Tid tid) override {
    auto it = by_pid.find(pid);
    if (it == by_pid.end()) return values(nullptr);
    auto t = it->second->threads.find(tid);
    return values(t == it->second->threads.end() ? nullptr : &t->second);
  }
  CounterValues read_process(int pid, Tid, const CounterValues&) override {
    auto it = by_pid.find(pid);
    return values(it == by_pid.end() ? nullptr : &it->second->process);
  }

 private:
  CounterValues values(const std::vector<uint64_t>* src) const {
    CounterValues v;
    v.values.assign(n_, 0.0);
    for (size_t i = 0; src && i < n_ && i < src->size(); ++i) v.values[i] = double((*src)[i]);
    return v;
  }
  const size_t& n_;
};

namespace {

size_t split(std::string_view s, std::string_view* out, size_t max) {
  size_t n = 0, i = 0;
  while (i < s.size() && n < max) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size()) break;
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    out[n++] = s.substr(i, j - i);
    i = j;
  }
  return n;
}

bool to_u64(std::string_view s, uint64_t& v, int base = 10) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

// What a departure (emul/events_format.h) closes the instances above its sp with. A return
// first closes the deeper entries as Unwound (EventParser::on_departure).
constexpr CloseReason departure_reason(uint64_t why) {
  switch (why) {
    case RP_DEPART_RETURN: return CloseReason::Return;
    case RP_DEPART_LONGJMP: return CloseReason::Longjmp;
    case RP_DEPART_EXCEPTION: return CloseReason::Exception;
    default: return CloseReason::Unwound;  // RP_DEPART_JUMP
  }
}
static_assert(departure_reason(RP_DEPART_RETURN) == CloseReason::Return);
static_assert(departure_reason(RP_DEPART_LONGJMP) == CloseReason::Longjmp);
static_assert(departure_reason(RP_DEPART_EXCEPTION) == CloseReason::Exception);
static_assert(departure_reason(RP_DEPART_JUMP) == CloseReason::Unwound);

// Event lines are told apart by their first field, one letter: every letter of
// emul/events_format.h is its own.
constexpr char kEventLetters[] = {RP_EV_PROBE,       RP_EV_DEPARTURE,    RP_EV_THREAD_EXIT, RP_EV_EXEC,
                                  RP_EV_EXEC_FAILED, RP_EV_FINAL,        RP_EV_END,         RP_EV_PROGRESS,
                                  RP_EV_MAPPED,      RP_EV_AGENT_REGION, RP_EV_AGENT_RECORD};
constexpr bool letters_distinct() {
  for (size_t i = 0; i < std::size(kEventLetters); ++i) {
    if (kEventLetters[i] == ' ') return false;
    for (size_t j = i + 1; j < std::size(kEventLetters); ++j)
      if (kEventLetters[i] == kEventLetters[j]) return false;
  }
  return true;
}
static_assert(letters_distinct(), "two event lines of emul/events_format.h share a letter");

}  // namespace

EventParser::EventParser(std::vector<probes::PlannedProbe> probes, regions::Scope scope, regions::Tracker::Sink sink,
                         AgentRegions agent_regions)
    : probes_(std::move(probes)), scope_(scope), sink_(std::move(sink)), agent_regions_(std::move(agent_regions)) {
  counts_ = std::make_unique<Counts>(n_counters_);
  tracker_ = std::make_unique<regions::Tracker>(*counts_, [this](regions::Instance&& inst) {
    auto it = std::find(open_order_.rbegin(), open_order_.rend(), inst.region);
    if (it != open_order_.rend()) open_order_.erase(std::next(it).base());
    sink_(std::move(inst));
  }, scope_);
}

EventParser::~EventParser() = default;

EventParser::File& EventParser::file(int id) {
  auto it = files_.find(id);
  if (it == files_.end()) throw std::logic_error("emul: unknown event file");
  return *it->second;
}

int EventParser::open_file(std::string name) {
  auto f = std::make_unique<File>();
  f->name = std::move(name);
  int id = next_file_++;
  files_[id] = std::move(f);
  return id;
}

std::optional<regions::RegionId> EventParser::current_region() const {
  if (open_order_.empty()) return std::nullopt;
  return open_order_.back();
}

void EventParser::opened(bool did, regions::RegionId region) {
  if (did) open_order_.push_back(region);
}

// Applies "<n thread deltas> [| <n process deltas> or =]" to the thread and the process.
void EventParser::update(File& f, Tid tid, std::string_view* tok, size_t ntok, bool with_process) {
  const size_t n = n_counters_;
  auto bad = [&] { return UserError(fmt::format("{}:{}: malformed counter values", f.name, f.lineno)); };
  if (ntok < n) throw bad();
  auto& t = f.threads[tid];
  t.resize(n, 0);
  for (size_t i = 0; i < n; ++i) {
    uint64_t d;
    if (!to_u64(tok[i], d)) throw bad();
    t[i] += d;
  }
  if (!with_process) {
    if (ntok != n) throw bad();
    return;
  }
  if (ntok < n + 2 || tok[n] != "|") throw bad();
  f.process.resize(n, 0);
  if (tok[n + 1] == "=") {
    if (ntok != n + 2) throw bad();
    f.process = t;
    return;
  }
  if (ntok != 2 * n + 1) throw bad();
  for (size_t i = 0; i < n; ++i) {
    uint64_t d;
    if (!to_u64(tok[n + 1 + i], d)) throw bad();
    f.process[i] += d;
  }
}

void EventParser::on_probe(File& f, std::string_view* tok, size_t n) {
  auto bad = [&] { return UserError(fmt::format("{}:{}: malformed probe event", f.name, f.lineno)); };
  uint64_t tid, sp;
  if (n < 4 || !to_u64(tok[2], tid) || !to_u64(tok[3], sp, 16)) throw bad();
  std::vector<size_t> ids;
  std::string_view list = tok[1];
  while (!list.empty()) {
    size_t c = list.find(',');
    uint64_t id;
    if (!to_u64(list.substr(0, c), id) || id >= probes_.size()) throw bad();
    ids.push_back(size_t(id));
    list = c == std::string_view::npos ? std::string_view() : list.substr(c + 1);
  }
  update(f, Tid(tid), tok + 4, n - 4, true);
  if (!f.process.empty()) instructions_ = f.process[0];
  Boundary b{f.pid, Tid(tid), sp, 0};
  tracker_->stack_at(b, CloseReason::Unwound);
  // Stops before starts, so that STOP and START at one address end one span and begin the next.
  std::stable_sort(ids.begin(), ids.end(), [&](size_t a, size_t c) {
    return (probes_[a].role == probes::SiteRole::SpanStop) > (probes_[c].role == probes::SiteRole::SpanStop);
  });
  for (size_t id : ids) {
    const probes::PlannedProbe& p = probes_[id];
    switch (p.role) {
      case probes::SiteRole::Entry: opened(tracker_->enter(p.region, b), p.region); break;
      case probes::SiteRole::SpanStart: opened(tracker_->span_start(p.region, b), p.region); break;
      case probes::SiteRole::SpanStop: tracker_->span_stop(p.region, b); break;
      case probes::SiteRole::SpanResume: opened(tracker_->span_resume(p.region, b), p.region); break;
    }
  }
}

void EventParser::on_departure(File& f, std::string_view* tok, size_t n) {
  uint64_t tid, sp;
  if (n < 4 || tok[1].size() != 1 || !to_u64(tok[2], tid) || !to_u64(tok[3], sp, 16))
    throw UserError(fmt::format("{}:{}: malformed departure event", f.name, f.lineno));
  update(f, Tid(tid), tok + 4, n - 4, true);
  Boundary b{f.pid, Tid(tid), sp, 0};
  if (tok[1][0] == RP_DEPART_RETURN) {
    // A ret pops the return address: entries at sp - 8 returned, deeper ones were left unseen.
    Boundary below = b;
    below.sp = sp - 8;
    tracker_->stack_at(below, CloseReason::Unwound);
  }
  tracker_->stack_at(b, departure_reason(uint8_t(tok[1][0])));
}

void EventParser::on_agent_name(File& f, std::string_view* tok, size_t n) {
  uint64_t region, spec;
  if (n != 4 || !to_u64(tok[1], region) || !to_u64(tok[2], spec))
    throw UserError(fmt::format("{}:{}: malformed agent region line", f.name, f.lineno));
  f.agent_regions[region] = agent_regions_ ? agent_regions_(uint32_t(spec), std::string(tok[3]))
                                           : std::vector<regions::RegionId>{};
}

// An agent record with the tool's counts: what preload::Replay does with a native record.
void EventParser::on_agent_record(File& f, std::string_view* tok, size_t n) {
  uint64_t kind, reason, region, tid, sp;
  if (n < 6 || !to_u64(tok[1], kind) || !to_u64(tok[2], reason) || !to_u64(tok[3], region) ||
      !to_u64(tok[4], tid) || !to_u64(tok[5], sp, 16))
    throw UserError(fmt::format("{}:{}: malformed agent record", f.name, f.lineno));
  update(f, Tid(tid), tok + 6, n - 6, true);
  if (!f.process.empty()) instructions_ = f.process[0];
  Boundary b{f.pid, Tid(tid), sp, 0};
  switch (kind) {
    case RP_ENTER: {
      auto it = f.agent_regions.find(region);
      if (it == f.agent_regions.end())
        throw UserError(fmt::format("{}:{}: agent region {} was never named", f.name, f.lineno, region));
      for (regions::RegionId id : it->second) opened(tracker_->enter(id, b), id);
      break;
    }
    case RP_STACK_AT: tracker_->stack_at(b, regions::close_reason(reason)); break;
    case RP_THREAD_EXIT: tracker_->thread_exit(b, regions::close_reason(reason)); break;
    case RP_PROCESS_EXIT: tracker_->process_exit(f.pid, 0, regions::close_reason(reason)); break;
    default: throw UserError(fmt::format("{}:{}: unknown agent record kind {}", f.name, f.lineno, kind));
  }
}

void EventParser::line(int id, std::string_view text) {
  File& f = file(id);
  ++f.lineno;
  auto bad = [&](const char* what) { return UserError(fmt::format("{}:{}: {}", f.name, f.lineno, what)); };
  if (f.state == 0) {
    if (text != RP_EVENTS_MAGIC) throw bad("not a " RP_EVENTS_MAGIC " event file");
    f.state = 1;
    return;
  }
  constexpr size_t kMaxTok = 64;
  std::string_view tok[kMaxTok];
  size_t n = split(text, tok, kMaxTok);
  if (n == kMaxTok) throw bad("too many fields");
  if (f.state == 1) {
    uint64_t pid;
    if (n != 4 || tok[0] != "pid" || !to_u64(tok[1], pid)) throw bad("expected 'pid P parent Q'");
    f.pid = int(pid);
    f.state = 2;
    return;
  }
  if (f.state == 2) {
    if (n < 2 || tok[0] != "counters") throw bad("expected the counter names");
    std::vector<std::string> names(tok + 1, tok + n);
    if (names_.empty()) {
      names_ = names;
      n_counters_ = names_.size();
    } else if (names != names_) {
      throw bad("counter names differ from the other event files");
    }
    f.state = 3;
    counts_->by_pid[f.pid] = &f;
    return;
  }
  if (n == 0) return;
  uint64_t tid = 0;
  switch (tok[0].size() == 1 ? tok[0][0] : '?') {
    case RP_EV_PROBE: on_probe(f, tok, n); break;
    case RP_EV_DEPARTURE: on_departure(f, tok, n); break;
    case RP_EV_AGENT_REGION: on_agent_name(f, tok, n); break;
    case RP_EV_AGENT_RECORD: on_agent_record(f, tok, n); break;
    case RP_EV_THREAD_EXIT:
      if (n < 3 || !to_u64(tok[1], tid)) throw bad("malformed thread exit");
      update(f, Tid(tid), tok + 3, n - 3, true);
      tracker_->thread_exit(Boundary{f.pid, Tid(tid), 0, 0}, CloseReason::ThreadExit);
      f.threads.erase(Tid(tid));
      break;
    case RP_EV_EXEC:
      if (n < 3 || !to_u64(tok[1], tid)) throw bad("malformed exec event");
      update(f, Tid(tid), tok + 3, n - 3, true);
      f.exec_pending = true;
      break;
    case RP_EV_EXEC_FAILED: f.exec_pending = false; break;
    case RP_EV_FINAL:
      if (n < 2 || !to_u64(tok[1], tid)) throw bad("malformed final thread values");
      update(f, Tid(tid), tok + 2, n - 2, false);
      break;
    case RP_EV_END: {
      uint64_t code;
      if (n != 2 + n_counters_ || !to_u64(tok[1], code)) throw bad("malformed process end");
      f.process.resize(n_counters_, 0);
      for (size_t i = 0; i < n_counters_; ++i) {
        uint64_t d;
        if (!to_u64(tok[2 + i], d)) throw bad("malformed process end");
        f.process[i] += d;
      }
      f.ended = true;
      exit_codes_[f.pid] = int(code);
      totals_[f.pid].assign(f.process.begin(), f.process.end());
      if (!f.process.empty()) instructions_ = f.process[0];
      break;
    }
    case RP_EV_PROGRESS: {
      uint64_t instr;
      if (n != 3 || !to_u64(tok[1], instr)) throw bad("malformed progress line");
      instructions_ = instr;
      break;
    }
    case RP_EV_MAPPED: {
      size_t at = 0;
      for (int spaces = 0; at < text.size() && spaces < 3; ++at) spaces += text[at] == ' ';
      probed_modules_.insert(std::string(text.substr(at)));
      break;
    }
    default: throw bad("unknown event");
  }
}

void EventParser::close_file(int id, bool crashed) {
  File& f = file(id);
  if (f.state == 3) {
    CloseReason why = CloseReason::ProcessExit;
    if (crashed || (!f.ended && !f.exec_pending)) why = CloseReason::Crash;
    if (!crashed && !f.ended && f.exec_pending) execed_.push_back(f.pid);
    tracker_->process_exit(f.pid, 0, why);
    auto it = counts_->by_pid.find(f.pid);
    if (it != counts_->by_pid.end() && it->second == &f) counts_->by_pid.erase(it);
  }
  files_.erase(id);
}

}  // namespace roofprof::emul
