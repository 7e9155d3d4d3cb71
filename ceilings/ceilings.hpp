#pragma once
// roofprof_ceilings, the API for other modules:
//   load_or_measure(options)  this machine's ceilings, cached per machine (store.hpp)
//   load(path) / save(c, path) a ceilings JSON file
//   measure(options)          measure now, no cache (measure.hpp)
//   format_table(c)           the human table (table.hpp)
//   flag_inconsistent(c)      the sanity check of the lines against each other (check.hpp)
#include "ceilings/check.hpp"
#include "ceilings/json.hpp"
#include "ceilings/measure.hpp"
#include "ceilings/names.hpp"
#include "ceilings/store.hpp"
#include "ceilings/table.hpp"
#include "ceilings/types.hpp"
