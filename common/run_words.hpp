#pragma once
// The words that name how a run measured, spelled once: on the command line (run's --scope,
// --cache-state and --backend, survey's --backend: runplan/option_values.hpp and
// survey/option_values.hpp parse them into enums), and in the result file (result::Run's scope,
// cache_state and backend, which result/json_read.cpp checks). Header only, so that the result
// library can check a file's words without depending on the libraries that measure.
namespace roofprof::run_words {

// scope: a region's counts are the whole process's, or its entering thread's
inline constexpr const char kProcess[] = "process";
inline constexpr const char kThread[] = "thread";

// cache_state: the program as it runs, or caches emptied before each outermost region call
inline constexpr const char kWarm[] = "warm";
inline constexpr const char kCold[] = "cold";

// backend: what counted (counters::BackendKind); run's and survey's --backend also take auto
inline constexpr const char kPerf[] = "perf";
inline constexpr const char kNative[] = "native";
inline constexpr const char kEmul[] = "emul";
inline constexpr const char kTime[] = "time";
inline constexpr const char kAuto[] = "auto";

// scope or backend of files merged from runs that differed in it (roofprof report's merge)
inline constexpr const char kMixed[] = "mixed";

}  // namespace roofprof::run_words
