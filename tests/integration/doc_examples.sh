#!/usr/bin/env bash
# Every C example in README.md and docs/*.md that includes <ompbench.h> is a
# complete benchmark file: compile it against the built library, warning-free,
# and run it with --test, in this process and in two re-executed ones
# (--processes 2), as a user's binary does for CI. C++ examples (```cpp) are
# built with c++ and run with --test; Fortran examples (```fortran, `use
# ompbench`) with the build's Fortran compiler, and run, when it has one.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count=0
for doc in "$src"/README.md "$src"/docs/*.md; do
  awk -v out="$tmp/ex" -v doc="$(basename "$doc")" '
    /^```c$/ { inblock = 1; n++; file = sprintf("%s_%s_%d.c", out, doc, n); next }
    /^```$/ && inblock { inblock = 0; next }
    inblock { print > file }
  ' "$doc"
done
# The libraries as built: static archives, or shared objects (BUILD_SHARED_LIBS).
if [ -e "$build/libompbench.a" ]; then
  libs="$build/libompbench_main.a $build/libompbench.a $(pkg-config --libs hwloc jansson) -lm"
else
  libs="-L$build -Wl,-rpath,$build -lompbench_main -lompbench"
fi
for f in "$tmp"/ex_*.c; do
  [ -e "$f" ] || continue
  grep -q '#include <ompbench.h>' "$f" || continue
  exe="${f%.c}"
  if ! cc -std=c11 -fopenmp ${OMPB_SANITIZE_FLAGS:-} -Wall -Wextra -Werror -I"$src/include" "$f" $libs -o "$exe" 2> "$exe.log"; then
    echo "FAIL: example $(basename "$f") does not compile:"; cat "$exe.log"; sed 's/^/    /' "$f"; exit 1
  fi
  if ! "$exe" --test > "$exe.out" 2>&1; then
    echo "FAIL: example $(basename "$f") --test failed:"; cat "$exe.out"; exit 1
  fi
  # Programs with their own main() (region markers) have no ompbench options.
  if ! grep -qE '^int main\(' "$f" &&
     { ! "$exe" --test --processes 2 --format json --output "$exe.json" > "$exe.out" 2>&1 ||
       ! grep -q '"processes": 2' "$exe.json"; }; then
    echo "FAIL: example $(basename "$f") --test --processes 2 failed:"; cat "$exe.out"; exit 1
  fi
  count=$((count + 1))
done
# C++ examples (```cpp blocks including <ompbench.h>): benchmark files,
# built with the C++ compiler and run like the C ones.
for doc in "$src"/README.md "$src"/docs/*.md; do
  awk -v out="$tmp/cx" -v doc="$(basename "$doc")" '
    /^```cpp$/ { inblock = 1; n++; file = sprintf("%s_%s_%d.cpp", out, doc, n); next }
    /^```$/ && inblock { inblock = 0; next }
    inblock { print > file }
  ' "$doc"
  awk -v out="$tmp/fx" -v doc="$(basename "$doc")" '
    /^```fortran$/ { inblock = 1; n++; file = sprintf("%s_%s_%d.f90", out, doc, n); next }
    /^```$/ && inblock { inblock = 0; next }
    inblock { print > file }
  ' "$doc"
done
for f in "$tmp"/cx_*.cpp; do
  [ -e "$f" ] || continue
  grep -q '#include <ompbench.h>' "$f" || continue
  exe="${f%.cpp}"
  if ! c++ -std=c++11 -fopenmp ${OMPB_SANITIZE_FLAGS:-} -Wall -Wextra -Werror -I"$src/include" "$f" $libs -o "$exe" 2> "$exe.log"; then
    echo "FAIL: example $(basename "$f") does not compile:"; cat "$exe.log"; sed 's/^/    /' "$f"; exit 1
  fi
  "$exe" --test > "$exe.out" 2>&1 || { echo "FAIL: example $(basename "$f") --test failed:"; cat "$exe.out"; exit 1; }
  count=$((count + 1))
done
# Fortran examples (```fortran blocks using the module), when the build has
# the module: compiled with the compiler that built it, and run.
fc=$(sed -n 's/^CMAKE_Fortran_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null)
if [ -e "$build/fortran/ompbench.mod" ] && [ -n "$fc" ]; then
  flib=$(ls "$build"/libompbench_fortran.* | head -1)
  for f in "$tmp"/fx_*.f90; do
    [ -e "$f" ] || continue
    grep -q 'use ompbench' "$f" || continue
    exe="${f%.f90}"
    if ! "$fc" -fopenmp ${OMPB_SANITIZE_FLAGS:-} -Wall -Werror -I"$build/fortran" "$f" "$flib" \
         $libs -Wl,-rpath,"$build" -o "$exe" 2> "$exe.log"; then
      echo "FAIL: example $(basename "$f") does not compile:"; cat "$exe.log"; sed 's/^/    /' "$f"; exit 1
    fi
    "$exe" > "$exe.out" 2>&1 || { echo "FAIL: example $(basename "$f") failed:"; cat "$exe.out"; exit 1; }
    count=$((count + 1))
  done
fi
[ "$count" -ge 2 ] || { echo "FAIL: expected at least 2 doc examples, found $count"; exit 1; }
echo "doc examples: $count compiled and ran"
