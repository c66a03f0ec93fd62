#!/usr/bin/env bash
# Installs the built tree into a temporary prefix and builds a tiny benchmark
# project against it twice: with CMake (find_package + ompbench_add_benchmark,
# whose CTest smoke test must pass) and with pkg-config; then a C++ program
# that calls the API through the installed headers. Works for a static or a
# shared build (pkg-config consumers get an rpath to the prefix).
# The CMake project sets no CMAKE_BUILD_TYPE: ompbench_add_benchmark must say
# it uses the Release flags and the benchmark must not be marked
# "unoptimized". With Fortran, a Fortran program uses the installed module
# through find_package (ompbench::fortran) and through pkg-config
# (ompbench-fortran), the steps of README's "Using ompbench from another
# project".
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
grep -q "ompbench_add_benchmark: CMAKE_BUILD_TYPE is empty, so benchmarks are built with the Release flags" \
  "$tmp/cfg.log" || { echo "FAIL: no message on the default Release flags:"; cat "$tmp/cfg.log"; exit 1; }
out=$("$tmp/proj/build/tiny" --list)
[ "$out" = $'tiny_sum[10, t=1]\ntiny_sum[10, t=2]\ntiny_sum[100, t=1]\ntiny_sum[100, t=2]' ] || {
  echo "FAIL: unexpected --list output: $out"; exit 1; }
"$tmp/proj/build/tiny" --format json --output "$tmp/r.json" --sample-count 3 --max-time 100ms
grep -q '"uri": "benches/tiny.c::tiny_sum\[10, t=1\]"' "$tmp/r.json" || {
  echo "FAIL: URI not relative to the project"; grep uri "$tmp/r.json"; exit 1; }
python3 - "$tmp/r.json" <<'PY' || exit 1
import json, sys
b = json.load(open(sys.argv[1]))["benchmarks"]
bad = [x["name"] for x in b if "unoptimized" in x["ompbench"]["marks"]]
if not b or bad:
    sys.exit("FAIL: a project without CMAKE_BUILD_TYPE built unoptimized benchmarks: %r" % bad)
PY

pcdir=$(dirname "$(ls "$tmp"/prefix/lib*/pkgconfig/ompbench.pc)")
export PKG_CONFIG_PATH="$pcdir"
rpath="-Wl,-rpath,$(dirname "$pcdir")"
cc -std=c11 $flags "$tmp/proj/benches/tiny.c" $(pkg-config --cflags ompbench) \
   -O2 -L"$(dirname "$pcdir")" -lompbench_main $(pkg-config --libs ompbench) $rpath -o "$tmp/tiny-pc"
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

# Fortran: the installed module through CMake and through pkg-config.
mod=$(ls "$tmp"/prefix/include/ompbench/fortran/ompbench.mod 2>/dev/null || true)
if [ -n "$mod" ]; then
  mkdir -p "$tmp/fproj"
  cat > "$tmp/fproj/app.f90" <<'F90'
program app
    use ompbench
    implicit none
    integer :: i
    do i = 1, 4
        call ompb_region_begin('step')
        call ompb_region_end('step')
    end do
    if (ompb_regions_report('-', 'csv') /= OMPB_OK) stop 1
end program app
F90
  cat > "$tmp/fproj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(fapp LANGUAGES C Fortran)
find_package(ompbench 0.1 REQUIRED)
add_executable(app app.f90)
target_link_libraries(app PRIVATE ompbench::fortran)
CMAKE
  timeout 300 cmake -S "$tmp/fproj" -B "$tmp/fproj/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_Fortran_FLAGS="$flags" -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
    > "$tmp/fcfg.log" 2>&1 && timeout 300 cmake --build "$tmp/fproj/build" > "$tmp/fbuild.log" 2>&1 \
    || { echo "FAIL: the Fortran project does not build:"; cat "$tmp/fcfg.log" "$tmp/fbuild.log"; exit 1; }
  timeout 300 gfortran $flags $(pkg-config --cflags ompbench-fortran) "$tmp/fproj/app.f90" \
    $(pkg-config --libs ompbench-fortran) $rpath -o "$tmp/fapp-pc" 2> "$tmp/fpc.log" \
    || { echo "FAIL: the Fortran program does not build with pkg-config:"; cat "$tmp/fpc.log"; exit 1; }
  for f in "$tmp/fproj/build/app" "$tmp/fapp-pc"; do
    OMPB_RUNNER_CTL_FIFO="$tmp/none.ctl" OMPB_RUNNER_ACK_FIFO="$tmp/none.ack" \
      timeout 60 "$f" > "$tmp/f.csv" 2> "$tmp/f.err" && grep -q 'region:step\[t=1\]' "$tmp/f.csv" \
      || { echo "FAIL: $f:"; cat "$tmp/f.csv" "$tmp/f.err"; exit 1; }
  done
fi
echo "install_package: cmake, pkg-config, C++${mod:+ and Fortran} consumers built and ran"
