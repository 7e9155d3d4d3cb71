# Install and package (docs/install.md). An install has the build tree's layout:
#   bin/roofprof
#   lib/roofprof/    the companions roofprof finds next to itself (common/layout.hpp): the agent, the
#                    Valgrind tool with vgpreload_core, the selftest kernels and, with
#                    ROOFPROF_BUNDLE_VALGRIND, the engine's launcher (valgrind.bin) the tool runs under
#   share/man/man1, share/bash-completion, share/zsh: generated from the CLI11 definitions
#   share/roofprof/events, share/doc/roofprof
# Nothing in it names the build or install directory, so the tree can be moved.

# roofprof and every companion it runs: what `make demo` builds (not the tests).
add_custom_target(roofprof_runtime DEPENDS roofprof roofprof_emul_tool roofprof-preload roofprof-selftest-kernels
  roofprof_docs)

# Man pages and completions: roofprof walks its own CLI11 definitions (cli/docgen.hpp).
set(ROOFPROF_DOCGEN_DIR ${CMAKE_BINARY_DIR}/docgen)
set(ROOFPROF_SHARE_DIR ${CMAKE_BINARY_DIR}/share)
set(ROOFPROF_COMPLETION_SRC ${PROJECT_SOURCE_DIR}/cli/completion)
add_custom_command(OUTPUT ${ROOFPROF_DOCGEN_DIR}/stamp
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${ROOFPROF_DOCGEN_DIR} ${ROOFPROF_SHARE_DIR}/man
  COMMAND $<TARGET_FILE:roofprof> --generate-docs ${ROOFPROF_DOCGEN_DIR}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${ROOFPROF_SHARE_DIR}/bash-completion/completions
          ${ROOFPROF_SHARE_DIR}/zsh/site-functions ${ROOFPROF_SHARE_DIR}/zsh/vendor-completions
  COMMAND ${CMAKE_COMMAND} -E copy_directory ${ROOFPROF_DOCGEN_DIR}/man ${ROOFPROF_SHARE_DIR}/man
  COMMAND ${CMAKE_COMMAND} -E cat ${ROOFPROF_DOCGEN_DIR}/completion-table.sh ${ROOFPROF_COMPLETION_SRC}/common.sh
          ${ROOFPROF_COMPLETION_SRC}/bash.sh > ${ROOFPROF_SHARE_DIR}/bash-completion/completions/roofprof
  COMMAND ${CMAKE_COMMAND} -E cat ${ROOFPROF_COMPLETION_SRC}/zsh-head.sh ${ROOFPROF_DOCGEN_DIR}/completion-table.sh
          ${ROOFPROF_COMPLETION_SRC}/common.sh ${ROOFPROF_COMPLETION_SRC}/zsh.sh
          > ${ROOFPROF_SHARE_DIR}/zsh/site-functions/_roofprof
  # Debian's zsh looks in vendor-completions, others (Spack, /usr/local) in site-functions.
  COMMAND ${CMAKE_COMMAND} -E create_symlink ../site-functions/_roofprof
          ${ROOFPROF_SHARE_DIR}/zsh/vendor-completions/_roofprof
  COMMAND ${CMAKE_COMMAND} -E touch ${ROOFPROF_DOCGEN_DIR}/stamp
  DEPENDS roofprof ${ROOFPROF_COMPLETION_SRC}/common.sh ${ROOFPROF_COMPLETION_SRC}/bash.sh
          ${ROOFPROF_COMPLETION_SRC}/zsh.sh ${ROOFPROF_COMPLETION_SRC}/zsh-head.sh
  COMMENT "Generating man pages and shell completions from roofprof's CLI11 definitions")
add_custom_target(roofprof_docs ALL DEPENDS ${ROOFPROF_DOCGEN_DIR}/stamp)

# The Valgrind engine: carried in lib/roofprof when it is the private one (scripts/install-deps.sh;
# no distribution package of Debian 12 has 3.24), else the system's or Spack's is a dependency.
if(VALGRIND_EXECUTABLE MATCHES "^${ROOFPROF_VALGRIND_ROOT}/")
  set(ROOFPROF_BUNDLE_VALGRIND_DEFAULT ON)
else()
  set(ROOFPROF_BUNDLE_VALGRIND_DEFAULT OFF)
endif()
option(ROOFPROF_BUNDLE_VALGRIND "install the Valgrind engine's launcher next to the tool"
  ${ROOFPROF_BUNDLE_VALGRIND_DEFAULT})

# cpack and `make install` install what is built; they never start a build of everything (tests).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)
set(ROOFPROF_INSTALL_LIBEXEC lib/roofprof)  # fixed: roofprof looks in bin/../lib/roofprof
install(TARGETS roofprof RUNTIME DESTINATION bin)
install(TARGETS roofprof-amd64-linux roofprof-selftest-kernels RUNTIME DESTINATION ${ROOFPROF_INSTALL_LIBEXEC})
install(TARGETS roofprof-preload LIBRARY DESTINATION ${ROOFPROF_INSTALL_LIBEXEC})
file(REAL_PATH ${VALGRIND_LIBEXEC_DIR}/vgpreload_core-amd64-linux.so ROOFPROF_VGPRELOAD_CORE)
install(FILES ${ROOFPROF_VGPRELOAD_CORE} DESTINATION ${ROOFPROF_INSTALL_LIBEXEC}
  RENAME vgpreload_core-amd64-linux.so)
if(ROOFPROF_BUNDLE_VALGRIND)
  file(REAL_PATH ${VALGRIND_EXECUTABLE} ROOFPROF_VALGRIND_LAUNCHER)
  install(PROGRAMS ${ROOFPROF_VALGRIND_LAUNCHER} DESTINATION ${ROOFPROF_INSTALL_LIBEXEC} RENAME valgrind.bin)
  foreach(f copyright README.Debian)
    if(EXISTS ${ROOFPROF_VALGRIND_ROOT}/usr/share/doc/valgrind/${f})
      install(FILES ${ROOFPROF_VALGRIND_ROOT}/usr/share/doc/valgrind/${f} DESTINATION share/doc/roofprof/valgrind)
    endif()
  endforeach()
endif()
install(DIRECTORY ${ROOFPROF_SHARE_DIR}/ DESTINATION share)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/counters/events/ DESTINATION share/roofprof/events
  FILES_MATCHING PATTERN "*.txt")
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION share/doc/roofprof)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION share/doc/roofprof/docs)

# cpack -G DEB: run-time dependencies from dpkg-shlibdeps (the Debian packages whose libraries
# roofprof, the agent and the engine link against).
set(CPACK_PACKAGE_NAME roofprof)
set(CPACK_PACKAGE_VENDOR "roofprof")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "roofline profiler for unmodified Linux binaries")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "roofprof developers <roofprof@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # the build is RelWithDebInfo; the package ships without debug info
if(NOT ROOFPROF_BUNDLE_VALGRIND)
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "valgrind (>= 3.24)")
endif()
# The body under the summary line (CPACK_PACKAGE_DESCRIPTION_SUMMARY), which cpack puts first.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "roofprof measures the work, traffic and time of functions of a \
running program with ptrace, an in-process agent, perf events or a Valgrind tool, and draws the roofline.")
include(CPack)
