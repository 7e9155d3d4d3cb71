# roofprof: two-command quick start.
#   make demo   install what is missing, build roofprof (not the tests), profile the bundled example
#   make test   install what is missing, build everything, run the whole test suite
#   make test-fast   the same without the tests labelled slow (ctest -LE slow; CI runs make test)
#   make install PREFIX=P   install a relocatable tree into P (docs/install.md)
BUILD  ?= build
JOBS   ?= $(shell nproc)
PREFIX ?= /usr/local

.PHONY: all deps configure build test test-fast demo install package bench clean

all: build

deps:
	@./scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: configure
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# A developer's quick check: every test but those labelled slow (tests/integration/slow_tests.cmake).
test-fast: build
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS) -LE slow

# Only roofprof, its companions and the example: the test suite is most of a full build.
demo: configure
	@cmake --build $(BUILD) -j$(JOBS) --target roofprof_runtime demo
	@cd $(BUILD) && ./bin/roofprof run --region daxpy --region dgemm_naive -o demo.json -- ./examples/demo 2000 200 && \
	  ./bin/roofprof report demo.json

install: configure
	@cmake --build $(BUILD) -j$(JOBS) --target roofprof_runtime
	@cmake --install $(BUILD) --prefix $(PREFIX)

# build/roofprof_VERSION_ARCH.deb (docs/install.md)
package: build
	@cd $(BUILD) && cpack -G DEB

bench: build
	@./bench/run-all.sh $(BUILD)

clean:
	@rm -rf $(BUILD)
