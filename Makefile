# roofprof: two-command quick start.
#   make demo   install what roofprof needs (not the tests'), build roofprof (not the tests),
#               profile the bundled example and draw its roofline (examples/demo.sh)
#   make test   install what is missing, build everything, run the whole test suite
#   make test-fast   the same without the tests labelled slow (ctest -LE slow; CI runs make test)
#   make install PREFIX=P   install a relocatable tree into P (docs/install.md)
BUILD  ?= build
JOBS   ?= $(shell nproc)
PREFIX ?= /usr/local

.PHONY: all deps deps-build configure configure-build build test test-fast demo install package bench clean

all: build

deps:
	@./scripts/install-deps.sh

# What building and running roofprof needs, not the test suite's packages.
deps-build:
	@./scripts/install-deps.sh --build

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DROOFPROF_TESTS=ON >/dev/null

# A new build tree: without the test suite (whose packages deps-build leaves out) and without
# debug information (RelWithDebInfo's -O2 -DNDEBUG, no -g: a quarter less compile CPU time,
# bench/build/debug_info_cost.py; make test configures RelWithDebInfo and rebuilds). An
# existing tree as it is configured.
NO_DEBUG_INFO = -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG"
configure-build: deps-build
	@cmake -S . -B $(BUILD) $(if $(wildcard $(BUILD)/CMakeCache.txt),,-DROOFPROF_TESTS=OFF $(NO_DEBUG_INFO)) \
	  >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# A developer's quick check: every test but those labelled slow (tests/integration/slow_tests.cmake).
test-fast: build
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -LE slow

# Only roofprof, its companions and the example: the test suite is most of a full build.
demo: configure-build
	@cmake --build $(BUILD) -j$(JOBS) --target roofprof_runtime demo
	@./examples/demo.sh $(BUILD)

install: configure-build
	@cmake --build $(BUILD) -j$(JOBS) --target roofprof_runtime
	@cmake --install $(BUILD) --prefix $(PREFIX)

# build/roofprof_VERSION_ARCH.deb (docs/install.md)
package: build
	@cd $(BUILD) && cpack -G DEB

bench: build
	@./bench/run-all.sh $(BUILD)

clean:
	@rm -rf $(BUILD)
