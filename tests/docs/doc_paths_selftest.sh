#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The docs' path check (doc_paths.py) fails where it must: on a fake tree
# whose documents name a file that exists it passes, and it fails, naming
# the document, the line and the path, on a moved file (lib/round.c named
# after it went to lib/engine/), a glob that matches nothing (lib/round*.c),
# an include-relative path (`engine/gone.h`), a bare file name no file has,
# a broken relative link, and a line of the --outside list no document
# names any more.
# Usage: doc_paths_selftest.sh SRC_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
checker=$src/tests/docs/doc_paths.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
mkdir -p "$tmp/t/lib/engine" "$tmp/t/docs"
: > "$tmp/t/lib/engine/round.c"
: > "$tmp/t/lib/engine/engine.h"
: > "$tmp/t/CONTRIBUTING.md"
: > "$tmp/t/outside.txt"
good='The engine (`lib/engine/round*.c`, face `engine/engine.h`, `round.c`), [the guide](../CONTRIBUTING.md).'
run() {   # run EXPECTED_RC WHAT GREP_PATTERN DOC_TEXT
  local want=$1 what=$2 pattern=$3
  printf '%s\n' "$4" > "$tmp/t/docs/architecture.md"
  set +e
  out=$(timeout 60 python3 "$checker" --root "$tmp/t" --outside "$tmp/t/outside.txt" \
        --strict "$tmp/t/docs/architecture.md" "$tmp/t/docs/*.md" 2>&1); rc=$?
  set -e
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$pattern" <<< "$out"; then
    echo "FAIL: $what: exit $rc (want $want), output: $out"; failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
run 0 "paths that exist" "all exist" "$good"
run 1 "a moved file" "docs/architecture.md:2: lib/round.c: no such path" "$good
the entry is \`lib/round.c\`."
run 1 "a glob that matches nothing" "lib/region*.c: no such path" "$good
regions: lib/region*.c."
run 1 "an include-relative path" "engine/gone.h: no such path" "$good
(\`engine/gone.h\`)"
run 1 "a bare file name" "round_old.c: no such path" "$good
(\`round_old.c\`)"
run 1 "a broken link" "../README.md: no such path" "$good
[readme](../README.md)"
echo "lib/old.c  a file a document once named" > "$tmp/t/outside.txt"
run 1 "a stale --outside line" "'lib/old.c' is named by no document" "$good"
echo "lib/old.c  a file a document names" > "$tmp/t/outside.txt"
run 0 "an --outside line in use" "all exist" "$good
see lib/old.c"
[ "$failures" -eq 0 ] || { echo "$failures of the checker's cases failed"; exit 1; }
echo "ok: the docs' path check fails on each kind of stale path"
