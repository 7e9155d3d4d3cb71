# The emulation engine (docs/emulation.md): Valgrind 3.24 or newer, from the private prefix that
# scripts/install-deps.sh fills from Debian 13's package where the system's valgrind is older,
# else the system's. The roofprof tool is built against the engine's headers and static core,
# and runs only under that engine's launcher (ROOFPROF_VALGRIND_EXECUTABLE, compiled in).
set(ROOFPROF_VALGRIND_ROOT "/opt/roofprof/valgrind" CACHE PATH "private Valgrind engine (scripts/install-deps.sh)")
if(EXISTS "${ROOFPROF_VALGRIND_ROOT}/usr/bin/valgrind.bin")
  set(VALGRIND_EXECUTABLE "${ROOFPROF_VALGRIND_ROOT}/usr/bin/valgrind.bin")
  set(VALGRIND_INCLUDE_DIR "${ROOFPROF_VALGRIND_ROOT}/usr/include/valgrind")
  set(VALGRIND_STATIC_DIR "${ROOFPROF_VALGRIND_ROOT}/usr/lib/x86_64-linux-gnu/valgrind")
  set(VALGRIND_LIBEXEC_DIR "${ROOFPROF_VALGRIND_ROOT}/usr/libexec/valgrind")
else()
  find_program(VALGRIND_EXECUTABLE valgrind REQUIRED)
  find_path(VALGRIND_INCLUDE_DIR pub_tool_basics.h PATHS /usr/include/valgrind REQUIRED)
  find_path(VALGRIND_STATIC_DIR libcoregrind-amd64-linux.a
    PATHS /usr/lib/x86_64-linux-gnu/valgrind /usr/libexec/valgrind /usr/lib/valgrind REQUIRED)
  find_path(VALGRIND_LIBEXEC_DIR vgpreload_core-amd64-linux.so
    PATHS /usr/libexec/valgrind /usr/lib/x86_64-linux-gnu/valgrind /usr/lib/valgrind REQUIRED)
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env VALGRIND_LIB=${VALGRIND_LIBEXEC_DIR} ${VALGRIND_EXECUTABLE} --version
  OUTPUT_VARIABLE VALGRIND_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX REPLACE "^valgrind-" "" VALGRIND_VERSION "${VALGRIND_VERSION}")
if(VALGRIND_VERSION VERSION_LESS 3.24)
  message(WARNING "valgrind ${VALGRIND_VERSION} (${VALGRIND_EXECUTABLE}) is older than 3.24: "
                  "run scripts/install-deps.sh as root for Debian 13's")
endif()
message(STATUS "Valgrind engine: ${VALGRIND_VERSION} (${VALGRIND_EXECUTABLE})")

# build/lib/roofprof/valgrind: the engine's launcher with its own tools (benchmarks compare
# roofprof's tool with valgrind's none, cachegrind and lackey of the same engine).
file(CONFIGURE OUTPUT ${ROOFPROF_LIBEXEC_DIR}/valgrind CONTENT [=[#!/bin/sh
# valgrind @VALGRIND_VERSION@, the engine roofprof's tool was built against (cmake/valgrind.cmake)
: "${VALGRIND_LIB:=@VALGRIND_LIBEXEC_DIR@}"
export VALGRIND_LIB
exec "@VALGRIND_EXECUTABLE@" "$@"
]=] @ONLY)
file(CHMOD ${ROOFPROF_LIBEXEC_DIR}/valgrind PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
  GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
