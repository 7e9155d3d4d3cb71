#!/usr/bin/env bash
# CI's second job (.ci/run runs it after make test): a build with warnings as errors and roofprof's C++
# side under AddressSanitizer and UndefinedBehaviorSanitizer (CMakeLists.txt: ROOFPROF_WERROR,
# ROOFPROF_SANITIZE; the agent, the Valgrind tool and the fixtures stay uninstrumented), then every
# unit test and a fast subset of the integration tests: the ptrace mechanisms, the agent and the
# combined mode, the emulated pass, result files, reports and bad input, none labelled slow.
# Usage: scripts/ci-sanitize.sh [BUILD_DIR]   (default build-san; JOBS=N, default nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-san}
jobs=${JOBS:-$(nproc)}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g -DNDEBUG" -DROOFPROF_TESTS=ON -DROOFPROF_WERROR=ON \
  -DROOFPROF_SANITIZE=ON >/dev/null
cmake --build "$build" -j"$jobs" --target unit_tests integration_tests roofprof_runtime fixtures
# A sanitizer finding fails the test that met it; leaks at exit are findings too.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
subset='RunBadInput|CommandLine|RunExits|RunCrash|RunSpan|RunThreads|RunDlopen|RunForks|RunLongjmp|RunException'
subset+='|CombinedMode|PreloadCli|Modes/PreloadSemantics|PreloadEmul|EmulProcesses|Groups|CallerGroups|NativeCounting'
subset+='|RunResultFile|ReportCli|Trace|Hatchet|Symbols|Names|DebugLog|Survey'
# Left out: the check that the ceilings kernels' inner loops keep their data in registers, a
# property of the optimised, uninstrumented build that ships (instrumented code spills).
ctest --test-dir "$build" --output-on-failure -j"$jobs" -R "^unit\\.|^integration\\.(${subset})\\." -LE slow \
  -E 'CeilingsKernels\.InnerLoopsDoNotSpill'
