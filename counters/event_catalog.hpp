#pragma once
// The event sets shipped with roofprof: counters/events/*.txt, embedded at build time
// (embed_event_files.cmake) and parsed on first use.
#include <string>
#include <vector>

#include "counters/event_set.hpp"

namespace roofprof::counters {

struct EmbeddedFile {
  const char* name;  // "skx.txt"
  const char* text;
};

const std::vector<EmbeddedFile>& embedded_event_files();  // generated

// Every embedded set, parsed. A broken embedded file throws (the unit tests parse them all).
const std::vector<EventSet>& event_catalog();

// By roofprof model name ("skx") or by a libpfm4 PMU name from a `match pfm` line ("clx",
// "amd64_fam19h_zen3"). nullptr when unknown.
const EventSet* find_event_set(const std::string& name);
// The same in `catalog` (shipped plus user sets).
const EventSet* find_event_set(const std::vector<EventSet>& catalog, const std::string& name);

// "snb, hsw, ..." for messages (of `catalog`: sorted by model).
std::string catalog_models();
std::string catalog_models(const std::vector<EventSet>& catalog);

}  // namespace roofprof::counters
