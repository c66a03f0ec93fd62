#!/usr/bin/env bash
# Installs the built tree into a temporary prefix and builds a tiny benchmark
# project against it twice: with CMake (find_package + ompbench_add_benchmark,
# whose CTest smoke test must pass) and with pkg-config; then a C++ program
# that calls the API through the installed headers. Works for a static or a
# shared build (pkg-config consumers get an rpath to the prefix).
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" > "$tmp/install.log"
test -f "$tmp/prefix/include/ompbench.h"
test -f "$tmp/prefix/include/ompbench/bench.h"
test ! -e "$tmp/prefix/include/round.h"          # internal headers stay private
libdir=$(ls -d "$tmp"/prefix/lib*/cmake/ompbench | head -1)
test -f "$libdir/ompbench-config.cmake"
test -f "$libdir/ompbench-config-version.cmake"

mkdir -p "$tmp/proj/benches"
cat > "$tmp/proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(tiny LANGUAGES C)
find_package(ompbench 0.1 REQUIRED)
enable_testing()
ompbench_add_benchmark(tiny SOURCES benches/tiny.c)
CMAKE
cat > "$tmp/proj/benches/tiny.c" <<'C'
#include <ompbench.h>
OMPB_BENCH(tiny_sum, OMPB_ARGS(10, 100), OMPB_THREADS(1, 2)) {
    uint64_t n = (uint64_t)ompb_arg(state);
    OMPB_ITER(state) {
        uint64_t s = 0;
        for (uint64_t i = 0; i < ompb_opaque_u64(n); i++)
            s += i;
        ompb_black_box(s);
    }
}
C
flags=${OMPB_SANITIZE_FLAGS:-}
cmake -S "$tmp/proj" -B "$tmp/proj/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" > "$tmp/cfg.log"
cmake --build "$tmp/proj/build" > "$tmp/build.log"
(cd "$tmp/proj/build" && ctest --output-on-failure) > "$tmp/ctest.log" || { cat "$tmp/ctest.log"; exit 1; }
grep -q "bench.tiny" "$tmp/ctest.log"
out=$("$tmp/proj/build/tiny" --list)
[ "$out" = $'tiny_sum[10, t=1]\ntiny_sum[10, t=2]\ntiny_sum[100, t=1]\ntiny_sum[100, t=2]' ] || {
  echo "FAIL: unexpected --list output: $out"; exit 1; }
"$tmp/proj/build/tiny" --format json --output "$tmp/r.json" --sample-count 3 --max-time 100ms
grep -q '"uri": "benches/tiny.c::tiny_sum\[10, t=1\]"' "$tmp/r.json" || {
  echo "FAIL: URI not relative to the project"; grep uri "$tmp/r.json"; exit 1; }

pcdir=$(dirname "$(ls "$tmp"/prefix/lib*/pkgconfig/ompbench.pc)")
export PKG_CONFIG_PATH="$pcdir"
rpath="-Wl,-rpath,$(dirname "$pcdir")"
cc -std=c11 $flags "$tmp/proj/benches/tiny.c" $(pkg-config --cflags ompbench) \
   -L"$(dirname "$pcdir")" -lompbench_main $(pkg-config --libs ompbench) $rpath -o "$tmp/tiny-pc"
"$tmp/tiny-pc" --test > /dev/null
# Built with MPI: the MPI main() links through its own pkg-config file.
if [ -f "$pcdir/ompbench-mpi.pc" ]; then
  cc -std=c11 $flags "$tmp/proj/benches/tiny.c" $(pkg-config --cflags ompbench-mpi) \
     $(pkg-config --libs ompbench-mpi) $rpath -o "$tmp/tiny-mpi"
  nm "$tmp/tiny-mpi" > "$tmp/tiny-mpi.nm"
  grep -q ' U MPI_Init_thread' "$tmp/tiny-mpi.nm" || { echo "FAIL: tiny-mpi has no MPI main()"; exit 1; }
fi

# C++: the declarations (extern "C", OMPB_API) and the black-box template.
cat > "$tmp/api.cpp" <<'CXX'
#include <ompbench.h>
#include <cstdio>
#include <cstring>
int main()
{
    ompb_hooks *h = ompb_hooks_new();
    ompb_black_box(ompb_hooks_current_timestamp());
    int ok = h && !ompb_hooks_is_instrumented(h) && ompb_hooks_start_benchmark(h) == 0
             && std::strcmp(ompb_version(), OMPB_VERSION_STRING) == 0
             && std::strcmp(ompb_strerror(OMPB_EINVAL), ompb_strerror(OMPB_OK)) != 0;
    ompb_hooks_free(h);
    std::puts(ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
CXX
c++ -std=c++11 -Wall -Wextra -Werror $flags "$tmp/api.cpp" $(pkg-config --cflags ompbench) \
    $(pkg-config --libs ompbench) $rpath -o "$tmp/api-cxx"
OMPB_SIMULATION=0 OMPB_RUNNER_CTL_FIFO="$tmp/none.ctl" OMPB_RUNNER_ACK_FIFO="$tmp/none.ack" \
  "$tmp/api-cxx" > /dev/null
echo "install_package: cmake, pkg-config and C++ consumers built and ran"
