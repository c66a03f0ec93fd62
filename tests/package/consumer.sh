#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ompbench as another project gets it: installed, then used from C, C++ and
# Fortran (issue 32). Usage: consumer.sh BUILD_DIR SOURCE_DIR [PREFIX]
# 1. Without PREFIX: installs BUILD_DIR (the test's own build) into a
#    scratch prefix; a second library build here took 72 s of CPU, and the
#    library-and-tools configuration is built by tests/package/deb.sh,
#    which runs this script on the .debs' tree. With PREFIX: uses the tree
#    installed there (a Debian package's /usr, say) as it is.
# 2. Configures tests/package/consumer/ against that installed tree
#    (find_package(ompbench) + ompbench_add_benchmark), builds it and runs
#    its C, C++ and Fortran benchmarks at OMP_NUM_THREADS=2: each must run
#    (exit 0) and report team_seen = 2, the width its own parallel region
#    had. A source compiled without OpenMP sees 1 and aborts its run.
# 3. Builds the C++ benchmark in a project without C (project(x CXX)),
#    whose Release-flags message must name C++, and through pkg-config
#    (ompbench.pc), and runs each the same way.
# The Fortran benchmark is required where gfortran is installed, and
# skipped with a note otherwise.
script_bound=1200
fail_fast=1
. "$(dirname "$0")/../integration/lib.sh" "$@"
[ -n "$src" ] || { echo "usage: $0 BUILD_DIR SOURCE_DIR [PREFIX]" >&2; exit 2; }
prefix=${3:-}
consumer=$src/tests/package/consumer

# Runs "$@" with its output in $tmp/$1.log, shown when it fails.
step() {
  local name=$1; shift
  "$@" > "$tmp/$name.log" 2>&1 || { cat "$tmp/$name.log" >&2; fail "$name: $*"; }
}

if [ -z "$prefix" ]; then
  prefix=$tmp/prefix
  step lib-install timeout $((120 * mult)) cmake --install "$build" --prefix "$prefix"
fi

step consumer-configure timeout $((300 * mult)) cmake -S "$consumer" -B "$tmp/consumer" \
  -DCMAKE_PREFIX_PATH="$prefix"
step consumer-build timeout $((300 * mult)) cmake --build "$tmp/consumer" -j 2

benches=(consumer_c consumer_cxx)
if command -v gfortran > /dev/null; then
  benches+=(consumer_f90)
else
  echo "note: no gfortran, the Fortran benchmark is not built"
fi

# run_check NAME EXE: runs EXE at OMP_NUM_THREADS=2 (JSON) and checks that
# it exited 0 and that every instance reports team_seen = 2.
run_check() {
  local name=$1 exe=$2
  [ -x "$exe" ] || fail "$name was not built ($exe)"
  OMP_NUM_THREADS=2 timeout $((120 * mult)) "$exe" --format json --output "$tmp/$name.json" \
    --sample-count 3 --warmup-time 1ms --max-time 200ms > "$tmp/$name.out" 2> "$tmp/$name.err"
  local rc=$?
  [ $rc -eq 0 ] || { cat "$tmp/$name.err" >&2; fail "$name exited with status $rc at OMP_NUM_THREADS=2"; }
  python3 - "$tmp/$name.json" "$name" <<'PY' || fail "$name: not every instance ran at 2 threads"
import json, sys
benchmarks = [b for b in json.load(open(sys.argv[1]))["benchmarks"]
              if b.get("run_type") == "iteration"]
if not benchmarks:
    sys.exit("%s: no benchmark in the results" % sys.argv[2])
for b in benchmarks:
    if b.get("team_seen") != 2 or b.get("threads") != 2:
        sys.exit("%s: %s: team_seen %r, threads %r (want 2 and 2)"
                 % (sys.argv[2], b.get("name"), b.get("team_seen"), b.get("threads")))
PY
  echo "$name: ran at 2 threads"
}

for b in "${benches[@]}"; do
  run_check "$b" "$tmp/consumer/$b"
done

# A project without C (project(x CXX)): find_package must work, and the
# Release-flags message must name C++ (the C file is compiled as C++ here).
mkdir -p "$tmp/cxxonly"
cat > "$tmp/cxxonly/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(cxxonly LANGUAGES CXX)
find_package(ompbench REQUIRED)
set_source_files_properties("$consumer/check.c" PROPERTIES LANGUAGE CXX)
ompbench_add_benchmark(consumer_cxx_only SOURCES "$consumer/bench_cxx.cpp" "$consumer/check.c")
CMAKE
step cxxonly-configure timeout $((300 * mult)) cmake -S "$tmp/cxxonly" -B "$tmp/cxxonly/build" \
  -DCMAKE_PREFIX_PATH="$prefix"
grep -q "built with the Release flags (C++: " "$tmp/cxxonly-configure.log" \
  || { cat "$tmp/cxxonly-configure.log" >&2; fail "the Release-flags message does not name C++"; }
step cxxonly-build timeout $((300 * mult)) cmake --build "$tmp/cxxonly/build"
run_check consumer_cxx_only "$tmp/cxxonly/build/consumer_cxx_only"

# pkg-config: the C++ benchmark with the flags ompbench.pc gives.
pcdir=$(dirname "$(ls "$prefix"/lib*/pkgconfig/ompbench.pc "$prefix"/lib/*/pkgconfig/ompbench.pc 2> /dev/null | head -1)")
[ -f "$pcdir/ompbench.pc" ] || fail "no ompbench.pc under $prefix"
libdir=$(dirname "$pcdir")
export PKG_CONFIG_PATH=$pcdir
step pc-build timeout $((300 * mult)) bash -c "cc -O2 -c '$consumer/check.c' \$(pkg-config --cflags ompbench) -o '$tmp/check.o' && \
  c++ -O2 '$consumer/bench_cxx.cpp' '$tmp/check.o' \$(pkg-config --cflags ompbench) \
  -L'$libdir' -lompbench_main \$(pkg-config --libs ompbench) -Wl,-rpath,'$libdir' -o '$tmp/consumer_cxx_pc'"
run_check consumer_cxx_pc "$tmp/consumer_cxx_pc"

echo "package consumer: C, C++${benches[2]:+ and Fortran} benchmarks ran at 2 threads against the installed tree (CMake), C++ alone and through pkg-config too"
