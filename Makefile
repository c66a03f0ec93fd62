# SPDX-License-Identifier: MIT
# The two quick-start commands. Everything real lives in CMake.
#   make bench   install deps, build (Release), run the example suite
#   make test    install deps, build, run every test (Release with -Werror,
#                then ASan+UBSan, then a clang build)
BUILD ?= build
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps build bench test test-release test-asan test-clang clean

all: build

deps:
	@bash tools/install-deps.sh

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BUILD) -j $(JOBS)

bench: build
	$(BUILD)/benches/examples

test: deps test-release test-asan test-clang

test-release:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DOMPB_WERROR=ON
	cmake --build $(BUILD) -j $(JOBS)
	cd $(BUILD) && ctest --output-on-failure -j 2

test-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DOMPB_SANITIZE=ON -DOMPB_WERROR=ON
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  OMPB_TEST_TIMEOUT_MULTIPLIER=4 ctest --output-on-failure -j 2 -LE no-sanitize

# clang builds everything, tests included, warning-free; the tests run in
# the two gcc builds above, except the libFuzzer targets (fuzz/), which
# need clang: a bounded run of each here. It builds without libpfm4, so the
# code path of a machine without it is compiled too.
test-clang:
	CC=clang cmake -S . -B $(BUILD)-clang -DCMAKE_BUILD_TYPE=Release -DOMPB_WERROR=ON -DOMPB_LIBPFM=OFF
	cmake --build $(BUILD)-clang -j $(JOBS)
	cd $(BUILD)-clang && ctest --output-on-failure -L fuzz

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-clang
