#pragma once
// Event sets the user adds or overrides without rebuilding: every `*.txt` file (the format of
// counters/events/*.txt, docs/counters.md section 3) in
//   $XDG_CONFIG_HOME/roofprof/events, or ~/.config/roofprof/events without XDG_CONFIG_HOME,
//   and the directory given with --event-dir (its sets win over the default directory's).
// A user set whose `model` is a shipped one replaces it; any other is added. User sets come
// before the shipped ones, so that their `match` lines are tried first.
#include <memory>
#include <string>
#include <vector>

#include "counters/event_set.hpp"

namespace roofprof::counters {

// The sets a run selects from; shared so that a selection (a pointer into it) can keep it alive.
using Catalog = std::shared_ptr<const std::vector<EventSet>>;

// The shipped sets only (event_catalog()), not owned.
Catalog shipped_catalog();

// $XDG_CONFIG_HOME/roofprof/events, else $HOME/.config/roofprof/events; "" when neither is set.
std::string default_event_dir(const char* xdg_config_home, const char* home);

// Every *.txt in `dir`, in name order, parsed (source: the file's path), marked `user`. A
// directory that does not exist gives none. Throws UserError "<file>:<line>: ..." for a bad
// file and when two files define one model.
std::vector<EventSet> load_event_dir(const std::string& dir);

// `shipped` with `user` sets first, each replacing the shipped set of its model.
std::vector<EventSet> merge_user_sets(const std::vector<EventSet>& shipped, std::vector<EventSet> user);

// The shipped sets with the default directory's (from the environment) and then `option_dir`'s
// (--event-dir; "" for none; it must exist). Throws UserError on a bad file or a missing
// --event-dir.
Catalog catalog_with_user_sets(const std::string& option_dir);

}  // namespace roofprof::counters
