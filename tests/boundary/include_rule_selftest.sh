#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The include rule's checker (include_rule.py) fails where it must: on a
# tiny fake tree with two layers it passes as long as the tree follows the
# design, and fails, naming the file, the line, the edge and the allowed
# list, on
# - an include from the lower layer into the upper one;
# - a call from the lower layer into the upper one through a declaration
#   placed in the lower layer (the include alone would pass);
# - two files of one layer that call each other (a loop through headers),
#   and two headers that include each other;
# - a file no layer claims;
# - an `except` or `loop` line that matches nothing any more;
# - with `faces on`, an include of a folder's header that is not its face;
# - a command file (tools/*.c) behind a face, an example bench (benches/)
#   that includes an internal header, an internal bench (benches/internal/)
#   behind a face without its `reach` line, a `reach` line for no layer;
# - a layer table in the docs that is not the design file's.
# Usage: include_rule_selftest.sh SRC_DIR
set -euo pipefail
export LC_ALL=C
src=$(cd "${1:-$(dirname "$0")/../..}" && pwd)
checker=$src/tests/boundary/include_rule.py
py=${OMPB_PYTHON3:-/usr/bin/python3}
[ -x "$py" ] || py=python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# A fresh fake tree: layer low (lib/low.*), layer high (lib/high.*) that
# may include low, and a public header.
fresh() {
  rm -rf "$tmp/t"
  mkdir -p "$tmp/t/lib" "$tmp/t/include/ompbench" "$tmp/t/docs"
  cd "$tmp/t"
  cat > design.txt <<'EOF'
layer low  lib/low   low/low.h   :
about low  the bottom
layer high lib/high  high/high.h : low
about high the top
map low  lib/low.* lib/low_*.*
map high lib/high.* lib/high_*.*
EOF
  printf 'void ompb_api(void);\n' > include/ompbench/api.h
  printf 'int ompb__low(void);\n' > lib/low.h
  printf '#include "low.h"\n#include <ompbench/api.h>\nint ompb__low(void) { return 1; }\n' > lib/low.c
  printf 'int ompb__high(void);\n' > lib/high.h
  printf '#include "high.h"\n#include "low.h"\nint ompb__high(void) { return ompb__low(); }\n' \
    > lib/high.c
}

run() { timeout 60 "$py" "$checker" --root "$tmp/t" --design "$tmp/t/design.txt" "$@"; }

# expect_fail NAME PATTERN...: the checker exits 1 and prints every PATTERN.
expect_fail() {
  local name=$1 out rc=0
  shift
  out=$(run "${CHECK_ARGS[@]}" 2>&1) || rc=$?
  if [ "$rc" != 1 ]; then
    echo "FAIL: $name: the checker exited $rc, expected 1:"; sed 's/^/    /' <<< "$out"
    failures=$((failures + 1)); return
  fi
  for p in "$@"; do
    grep -qF -- "$p" <<< "$out" || {
      echo "FAIL: $name: no '$p' in:"; sed 's/^/    /' <<< "$out"
      failures=$((failures + 1)); return; }
  done
  echo "ok: $name"
}
CHECK_ARGS=()

fresh
if out=$(run 2>&1); then echo "ok: a tree that follows the design passes"
else echo "FAIL: the clean fake tree fails:"; sed 's/^/    /' <<< "$out"; failures=$((failures + 1)); fi

fresh
printf '#include "low.h"\n#include "high.h"\nint ompb__low(void) { return 1; }\n' > lib/low.c
expect_fail "an include from low into high" \
  'lib/low.c:2: includes "high.h" (lib/high.h): low -> high is not allowed (low may include: nothing but public headers)'

fresh
printf 'int ompb__low(void);\nint ompb__high(void);\n' > lib/low.h
printf '#include "low.h"\nint ompb__low(void) { return ompb__high(); }\n' > lib/low.c
printf '#include "high.h"\nint ompb__high(void) { return 2; }\n' > lib/high.c
expect_fail "a call from low into high, declared in low" \
  'lib/low.c:2: calls ompb__high (lib/high.c): low -> high is not allowed'

fresh
printf 'int ompb__low(void);\nint ompb__low_b(void);\n' > lib/low.h
printf '#include "low.h"\nint ompb__low(void) { return ompb__low_b(); }\n' > lib/low.c
printf '#include "low.h"\nint ompb__low_b(void) { return ompb__low(); }\n' > lib/low_b.c
expect_fail "two files that call each other" \
  'loop: these files call each other: lib/low.c -> lib/low_b.c -> lib/low.c'

fresh
printf '#include "low_b.h"\nint ompb__low(void);\n' > lib/low.h
printf '#include "low.h"\n' > lib/low_b.h
expect_fail "two headers that include each other" \
  'loop: headers include each other: lib/low.h -> lib/low_b.h -> lib/low.h'

fresh
printf 'int x;\n' > lib/stray.c
expect_fail "a file no layer claims" 'lib/stray.c: belongs to no layer'

fresh
printf 'except lib/low.c -> lib/high.* : gone\nloop lib/low*.c : gone\n' >> design.txt
expect_fail "stale except and loop lines" \
  "'except lib/low.c -> lib/high.*' matches no edge any more" \
  "'loop lib/low*.c' matches no loop any more"

fresh
printf '#include "low.h"\n#include "high.h"\nint ompb__low(void) { return 1; }\n' > lib/low.c
printf 'except lib/low.c -> lib/high.* : known, to be cut\n' >> design.txt
if out=$(run 2>&1); then echo "ok: a listed known edge passes"
else echo "FAIL: a listed known edge fails:"; sed 's/^/    /' <<< "$out"; failures=$((failures + 1)); fi

fresh
mkdir -p lib/low lib/high
printf 'int ompb__low(void);\n' > lib/low/low.h
printf 'int ompb__low_b(void);\n' > lib/low/b.h
printf '#include "low/low.h"\nint ompb__low(void) { return 1; }\n' > lib/low/low.c
printf '#include "low/b.h"\nint ompb__low_b(void) { return 1; }\n' > lib/low/b.c
printf '#include "low/b.h"\nint ompb__high(void) { return ompb__low_b(); }\n' > lib/high/high.c
rm lib/low.c lib/low.h lib/high.c lib/high.h
printf 'faces on\n' >> design.txt
expect_fail "an include of a folder's header that is not its face" \
  'lib/high/high.c:1: includes "low/b.h": from outside lib/low/ include its face "low/low.h" only'

fresh
mkdir -p lib/low lib/high
printf '#include "high/b.h"\n' > lib/high/high.h
printf 'int ompb__high_b(void);\n' > lib/high/b.h
printf '#include "high/b.h"\nint ompb__high_b(void) { return 1; }\n' > lib/high/b.c
printf 'int ompb__low(void);\n' > lib/low/low.h
printf '#include "low/low.h"\n#include "high/high.h"\nint ompb__low(void) { return 1; }\n' \
  > lib/low/low.c
rm lib/low.c lib/low.h lib/high.c lib/high.h
printf 'faces on\nexcept lib/low/low.c -> lib/high/b.* : known, to be cut\n' >> design.txt
if out=$(run 2>&1); then echo "ok: a known edge to a header is matched through its folder's face"
else echo "FAIL: a known edge through a face fails:"; sed 's/^/    /' <<< "$out"; failures=$((failures + 1)); fi

# The command's files (tools/*.c), the example benches and the internal
# benches are layers too: a tree with a face for low, a CLI layer that may
# use it, an example layer of public headers only, and internal benches
# that reach behind the faces.
fresh_outer() {
  fresh
  mkdir -p lib/low tools benches/internal
  printf 'int ompb__low(void);\n' > lib/low/low.h
  printf 'int ompb__low_b(void);\n' > lib/low/b.h
  printf '#include "low/low.h"\n#include "low/b.h"\nint ompb__low(void) { return 1; }\nint ompb__low_b(void) { return 2; }\n' \
    > lib/low/low.c
  rm lib/low.c lib/low.h lib/high.c lib/high.h
  printf '%s\n' 'faces on' 'layer low lib/low low/low.h :' 'layer cli tools - : low' \
    'layer examples benches - :' 'layer inner benches/internal - : low' \
    'reach inner : it times what the faces hide' > design.txt
  printf '#include "low/low.h"\nint main(void) { return ompb__low(); }\n' > tools/cmd.c
  printf '#include <ompbench/api.h>\nint main(void) { ompb_api(); return 0; }\n' > benches/ex.c
  printf '#include "low/b.h"\nint main(void) { return ompb__low_b(); }\n' > benches/internal/mb.c
}
fresh_outer
if out=$(run 2>&1); then echo "ok: a CLI through faces, public examples and internal benches pass"
else echo "FAIL: the clean outer tree fails:"; sed 's/^/    /' <<< "$out"; failures=$((failures + 1)); fi

fresh_outer
printf '#include "low/b.h"\nint main(void) { return ompb__low_b(); }\n' > tools/cmd.c
expect_fail "a command file that includes a header behind a face" \
  'tools/cmd.c:1: includes "low/b.h": from outside lib/low/ include its face "low/low.h" only'

fresh_outer
printf '#include "low/low.h"\nint main(void) { return ompb__low(); }\n' > benches/ex.c
expect_fail "an example bench that includes an internal header" \
  'benches/ex.c:1: includes "low/low.h" (lib/low/low.h): examples -> low is not allowed (examples may include: nothing but public headers)'

fresh_outer
sed -i '/^reach/d' design.txt
expect_fail "an internal bench behind a face without a reach line" \
  'benches/internal/mb.c:1: includes "low/b.h": from outside lib/low/ include its face "low/low.h" only'

fresh_outer
printf 'reach nowhere : no such layer\n' >> design.txt
expect_fail "a reach line for an unknown layer" "expected 'reach LAYER : WHY' after the layer's line"

fresh
printf '# Layers\n<!-- layers: generated from tests/boundary/layers.txt -->\n| stale |\n<!-- layers: end -->\n' \
  > docs/arch.md
CHECK_ARGS=(--doc "$tmp/t/docs/arch.md")
expect_fail "a docs table that is not the design's" 'the layer table differs from the design file'
{ printf '<!-- layers: generated from tests/boundary/layers.txt -->\n'; run --print-doc
  printf '<!-- layers: end -->\n'; } > docs/arch.md
if out=$(run --doc "$tmp/t/docs/arch.md" 2>&1); then echo "ok: the generated docs table passes"
else echo "FAIL: the generated docs table fails:"; sed 's/^/    /' <<< "$out"; failures=$((failures + 1)); fi

[ "$failures" = 0 ] || { echo "include_rule_selftest: $failures case(s) failed"; exit 1; }
echo "include_rule_selftest: the checker fails on every kind of violation and passes clean trees"
