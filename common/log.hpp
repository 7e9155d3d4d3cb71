#pragma once
// roofprof's debug log (ROOFPROF_LOG=tracer,counters,agent,emul[,all], ROOFPROF_LOG_FILE=PATH;
// the contract shared with the agent is common/log_format.h). Read once from the environment by
// log::configure_from_environment() at the start of main; until then, and when a category is
// off, a call costs one branch on a loaded mask:
//   log::line(log::Category::Tracer, "resume {} sig {}", tid, sig);
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "common/log_format.h"

namespace roofprof::log {

enum class Category : unsigned {
  Tracer = RP_LOG_TRACER,
  Counters = RP_LOG_COUNTERS,
  Agent = RP_LOG_AGENT,
  Emul = RP_LOG_EMUL,
};

// What the two variables ask for.
struct Settings {
  unsigned mask = 0;
  std::string file;  // empty: stderr
};

// ROOFPROF_LOG's and ROOFPROF_LOG_FILE's values (null: unset) -> Settings; an unknown category
// is a UserError naming it and the known ones.
Settings parse(const char* categories, const char* file);

// Where the lines go: one write(2) per line on a descriptor opened for appending.
class Sink {
 public:
  explicit Sink(const Settings& settings);  // UserError when the file cannot be opened
  ~Sink();
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  bool on(Category c) const { return (mask_ & unsigned(c)) != 0; }
  void write(Category c, std::string_view text) const;

 private:
  unsigned mask_;
  int fd_;
};

namespace detail {
// The mask of the process's sink (0 until configured): the one branch of a disabled call.
extern unsigned active_mask;
const Sink& sink();
}  // namespace detail

// Sets the process's log from ROOFPROF_LOG / ROOFPROF_LOG_FILE (UserError when they are wrong).
void configure_from_environment();

inline bool on(Category c) { return (detail::active_mask & unsigned(c)) != 0; }

template <typename... Args>
void line(Category c, fmt::format_string<Args...> format, Args&&... args) {
  if (on(c)) detail::sink().write(c, fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace roofprof::log
