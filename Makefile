# SPDX-License-Identifier: MIT
# The quick-start commands. Everything real lives in CMake.
#   make bench   install deps, build (Release), run the example suite
#   make check   the inner loop: Release -Werror build, then the unit,
#                integration, boundary and docs tests (no sanitizers)
#   make test    install deps, build, run every test (Release with -Werror,
#                then ASan+UBSan, then a clang build)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# ctest's parallelism in `make check` and the two test stages of `make
# test`: twice the cores, since many tests mostly wait (timeouts, sleeps,
# signals, MPI and browser start-up: integration.slurm takes 14 s for 0.6 s
# of CPU) and two at a time leave the cores idle then. The tests that need
# the machine to themselves stay RUN_SERIAL or behind their RESOURCE_LOCK,
# and every test passes next to two CPU hogs anyway
# (tools/test-under-load.sh).
TEST_JOBS ?= $(shell echo $$(( $(JOBS) * 2 )))
# The contributing recipes' copy of the tree and its Release build
# (tests/contributing/), one for both test stages: the ASan stage finds it
# built by the Release stage and only reruns the recipes.
CONTRIBUTING_DIR ?= $(abspath $(BUILD))-contributing
CHECK_LABELS = ^(unit|integration|boundary|docs)$$

.PHONY: all deps build bench check test test-release build-release ctest-release \
  test-asan build-asan ctest-asan test-clang clean

all: build

deps:
	@bash tools/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	$(BUILD)/benches/examples

# The Release -Werror build of test-release; the tests labelled unit,
# integration, boundary and docs (not the valgrind, contributing, bench,
# mpi and fuzz ones, nor the *_scale cost bars (label scale), nor the
# sanitizer and clang stages: `make test`).
check:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DOMPB_WERROR=ON \
	  -DOMPB_CONTRIBUTING_DIR=$(CONTRIBUTING_DIR)
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS) -L '$(CHECK_LABELS)' -LE '^scale$$'

# The three stages below, with the clang stage and the ASan build running
# niced beside the test runs, which leave the cores idle much of the time
# (tools/make-test.sh says how; BUILD-clang.log and BUILD-asan.log hold the
# background output, shown when a stage fails).
test: deps
	@bash tools/make-test.sh $(MAKE) $(BUILD) BUILD=$(BUILD) JOBS=$(JOBS) \
	  TEST_JOBS=$(TEST_JOBS) CONTRIBUTING_DIR=$(CONTRIBUTING_DIR)

test-release: build-release ctest-release

build-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DOMPB_WERROR=ON \
	  -DOMPB_CONTRIBUTING_DIR=$(CONTRIBUTING_DIR)
	cmake --build $(BUILD) -j $(JOBS)

ctest-release:
	cd $(BUILD) && ctest --output-on-failure -j $(TEST_JOBS)

# The ASan+UBSan build compiles at -O1 (CMakeLists.txt, as the sanitizers'
# documentation advises: a third less CPU in the heaviest tests than -O0).
# The contributing recipes are left out: they rebuild and run the Release
# copy of the tree (tests/contributing/), not this build, so a second run
# would only repeat the first. So are the boundary and docs checks (they
# read sources and symbol tables, running none of the code) and the tests
# labelled no-sanitize: the *_scale ones time the tools' CPU on N and 4N
# instances, a ratio the sanitizers' runtime distorts, on code the other
# integration tests run here on small files.
test-asan: build-asan ctest-asan

build-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DOMPB_SANITIZE=ON -DOMPB_WERROR=ON \
	  -DOMPB_CONTRIBUTING_DIR=$(CONTRIBUTING_DIR)
	cmake --build $(BUILD)-asan -j $(JOBS)

ctest-asan:
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  OMPB_TEST_TIMEOUT_MULTIPLIER=4 ctest --output-on-failure -j $(TEST_JOBS) \
	  -LE '^(no-sanitize|contributing|boundary|docs)$$'

# clang builds everything, tests included, warning-free; the tests run in
# the two gcc builds above, except the libFuzzer targets (fuzz/), which
# need clang: a bounded run of each here (20000 inputs or 60 s each; a
# target is single-threaded, so JOBS of them run at once). It builds
# without libpfm4, so the code path of a machine without it is compiled
# too. Its fuzz runs do not hold the default runner FIFOs
# (OMPB_TEST_FOREIGN_RUNNER=OFF): `make test` runs them beside the Release
# tests, whose fake runner must be the one holding them. Nothing else of
# this build runs, so it compiles at -O0 (clang's warnings come from its
# front end, at any optimization level; the fuzzers set their own -O1) and
# leaves out the Fortran module, which gfortran compiles in the gcc builds.
test-clang:
	CC=clang cmake -S . -B $(BUILD)-clang -DCMAKE_BUILD_TYPE=Release -DOMPB_WERROR=ON -DOMPB_LIBPFM=OFF \
	  -DOMPB_TEST_FOREIGN_RUNNER=OFF -DOMPB_FORTRAN=OFF '-DCMAKE_C_FLAGS_RELEASE=-O0 -DNDEBUG'
	cmake --build $(BUILD)-clang -j $(JOBS)
	cd $(BUILD)-clang && ctest --output-on-failure -j $(JOBS) -L fuzz

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-clang $(CONTRIBUTING_DIR) $(BUILD)-asan.log $(BUILD)-clang.log
