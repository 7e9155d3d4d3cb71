# roofprof: two-command quick start.
#   make demo   install what is missing, build, profile the bundled example
#   make test   install what is missing, build, run the whole test suite
BUILD ?= build
JOBS  ?= $(shell nproc)

.PHONY: all deps build test demo bench clean

all: build

deps:
	@./scripts/install-deps.sh

build: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

test: build
	@ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)

demo: build
	@cd $(BUILD) && ./bin/roofprof run --region daxpy --region dgemm_naive -o demo.json -- ./examples/demo 2000 200 && \
	  ./bin/roofprof report demo.json

bench: build
	@./bench/run-all.sh $(BUILD)

clean:
	@rm -rf $(BUILD)
