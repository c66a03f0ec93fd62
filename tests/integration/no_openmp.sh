#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A caller-team benchmark whose C++ file was compiled without OpenMP (issue
# 32: a .cpp source of a target that linked OpenMP for C only): its
# `#pragma omp parallel` is ignored, the body opens no region, and the
# warning must say "compiled without OpenMP" with the fix (OMPB_BENCH notes
# _OPENMP undefined as it notes -O0), not the advice to drop .team. The same
# file compiled with -fopenmp opens its regions and gets no such warning.
# Built with g++ against this build's static or shared library and main();
# no g++: skipped (77).
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
command -v g++ > /dev/null || { echo "no g++: skipped"; exit 77; }
if [ -e "$build/libompbench.a" ]; then
  libs="$build/libompbench_main.a $build/libompbench.a $(pkg-config --libs hwloc jansson) -lm -ldl"
else
  libs="-L$build -Wl,-rpath,$build -lompbench_main -lompbench"
fi
cat > "$tmp/serial.cpp" <<'CXX'
#include <ompbench.h>
OMPB_BENCH(kernel, .team = OMPB_TEAM_CALLER)
{
    OMPB_ITER(state) {
        unsigned s = 0;
#pragma omp parallel reduction(+ : s)
        s += 1u;
        ompb_black_box(s);
    }
}
CXX
flags=${OMPB_SANITIZE_FLAGS:-}
# Compiled without OpenMP (the pragma draws -Wunknown-pragmas: not asked
# for here), linked with it, as the consumer's link line had it.
for omp in none -fopenmp; do
  cflag=$omp; [ "$omp" = none ] && cflag=
  timeout 120 g++ -std=c++11 -O2 $cflag $flags -I"$src/include" -c "$tmp/serial.cpp" \
    -o "$tmp/serial.o" 2> "$tmp/cc.log" || { cat "$tmp/cc.log"; fail "g++ ($omp) does not compile"; continue; }
  timeout 120 g++ $flags "$tmp/serial.o" $libs -fopenmp -o "$tmp/serial-$omp" 2> "$tmp/ld.log" \
    || { cat "$tmp/ld.log"; fail "g++ ($omp) does not link"; continue; }
  OMP_NUM_THREADS=2 timeout 120 "$tmp/serial-$omp" --test > "$tmp/out" 2> "$tmp/err-$omp" \
    || { cat "$tmp/err-$omp"; fail "the $omp build's run failed"; }
done
err=$tmp/err-none
grep -q "kernel: the body opened no parallel region: .*serial.cpp was compiled without OpenMP (_OPENMP undefined)" "$err" \
  || { cat "$err"; fail "no 'compiled without OpenMP' warning for the file built without -fopenmp"; }
grep -q "OpenMP::OpenMP_<LANG>" "$err" || fail "the warning does not give the CMake fix"
grep -q "\.team" "$err" && fail "the warning still talks about .team: $(grep '\.team' "$err")"
grep -q "compiled without OpenMP\|opened no parallel region" "$tmp/err--fopenmp" \
  && fail "the -fopenmp build was warned about: $(cat "$tmp/err--fopenmp")"
[ "$fails" -eq 0 ] || exit 1
echo "no_openmp: the file built without OpenMP is named as such; the -fopenmp build is not warned"
