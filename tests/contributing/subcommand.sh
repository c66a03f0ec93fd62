#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says a new subcommand of `ompbench` is one file plus one
# table row. Do exactly that to the shared copy of the tree (recipe.sh):
# add the tools/hello.c the document shows and its X(hello, ...) row in
# tools/tools.h, build the command, and check that `ompbench hello` runs,
# refuses bad input, that --help lists it and that an unknown command's
# message names it.
. "$(dirname "$0")/recipe.sh" "$@"
awk -v want='/* tools/hello.c */' '/^```c$/ { inblock = 1; first = 1; next }
     /^```$/ { inblock = 0; keep = 0; next }
     inblock && first { keep = ($0 == want); first = 0 }
     inblock && keep' "$src/CONTRIBUTING.md" > "$tree/tools/hello.c"
grep -q 'ompb__tool_hello' "$tree/tools/hello.c" || { echo "FAIL: no hello.c example in CONTRIBUTING.md"; exit 1; }
# The row, after the list's last one (which has no line continuation).
sed -i 's/^\(    X([a-z_]*, .*)\)$/\1 \\\n    X(hello, "say hello")/' "$tree/tools/tools.h"
grep -q '^    X(hello, "say hello")$' "$tree/tools/tools.h" || { echo "FAIL: could not add the row"; exit 1; }
recipe_files "Adding a subcommand" tools/
# One row more (the list's last row before it only gains its continuation).
[ "$(grep -c '^    X(' "$tree/tools/tools.h")" -eq $(( $(grep -c '^    X(' "$src/tools/tools.h") + 1 )) ] ||
  { echo "FAIL: not one row more:"; diff "$src/tools/tools.h" "$tree/tools/tools.h"; exit 1; }
recipe_build ompbench_tool
tool=$work/build/tools/ompbench
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
grep -qF ", hello)" <<< "$err" || { echo "FAIL: unknown command: $err"; exit 1; }
echo "ok: a subcommand from one file and one row"
