#!/usr/bin/env bash
# Every C example in README.md and docs/*.md that includes <ompbench.h> is a
# complete benchmark file: compile it against the built library, warning-free,
# and run it with --test, in this process and in two re-executed ones
# (--processes 2), as a user's binary does for CI.
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
[ "$count" -ge 2 ] || { echo "FAIL: expected at least 2 doc examples, found $count"; exit 1; }
echo "doc examples: $count compiled and ran"
