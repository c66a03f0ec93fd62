#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a new subcommand of `ompbench` is one file plus one
# table row. Do exactly that to a copy of the tree: add the tools/hello.c
# the document shows and its X(hello, ...) row in tools/tools.h, build the
# command, and check that `ompbench hello` runs, that --help lists it and
# that an unknown command's message names it.
. "$(dirname "$0")/../contributing_tree.sh" "$@"
doc_block '/* tools/hello.c */' > "$tree/tools/hello.c"
grep -q 'ompb__tool_hello' "$tree/tools/hello.c" || { echo "FAIL: no hello.c example in CONTRIBUTING.md"; exit 1; }
# The row, after the list's last one (which has no line continuation).
sed -i 's/^\(    X(report, .*)\)$/\1 \\\n    X(hello, "say hello")/' "$tree/tools/tools.h"
grep -q '^    X(hello, "say hello")$' "$tree/tools/tools.h" || { echo "FAIL: could not add the row"; exit 1; }
[ "$(diff -rq "$src/tools" "$tree/tools" | wc -l)" -eq 2 ] ||
  { echo "FAIL: more than one file and one row changed:"; diff -rq "$src/tools" "$tree/tools"; exit 1; }
timeout 600 cmake -S "$tree" -B "$tree/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF > "$tmp/cmake.log" 2>&1 \
  || { cat "$tmp/cmake.log"; exit 1; }
timeout 900 cmake --build "$tree/build" -j 2 --target ompbench_tool > "$tmp/build.log" 2>&1 \
  || { tail -30 "$tmp/build.log"; exit 1; }
tool=$tree/build/tools/ompbench
[ "$(timeout 60 "$tool" hello)" = "hello, world" ] || { echo "FAIL: ompbench hello"; exit 1; }
[ "$(timeout 60 "$tool" hello you)" = "hello, you" ] || { echo "FAIL: ompbench hello you"; exit 1; }
set +e
err=$(timeout 60 "$tool" hello a b 2>&1)
status=$?
set -e
[ "$status" = 2 ] && grep -qF "ompbench hello: expected at most 1 name, got 2" <<< "$err" ||
  { echo "FAIL: bad input: status $status, '$err'"; exit 1; }
timeout 60 "$tool" --help | grep -qE '^  hello +say hello$' || { echo "FAIL: --help does not list hello"; exit 1; }
set +e
err=$(timeout 60 "$tool" nosuch 2>&1)
set -e
grep -qF "report, hello)" <<< "$err" || { echo "FAIL: unknown command: $err"; exit 1; }
echo "contributing_subcommand: ok"
