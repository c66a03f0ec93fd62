#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CONTRIBUTING.md says an option is one field and one table row. Do exactly
# that to the shared copy of the tree (recipe.sh): add the --note field and row the document
# shows, build the example suite, and check that --help lists it, that the
# parser takes its value, and that a missing, empty or repeated value is
# refused (exit 2, one line naming it), all from the row alone.
. "$(dirname "$0")/recipe.sh" "$@"
blocks=$tmp/blocks.c
awk '/^```c$/ { inblock = 1; next } /^```$/ { inblock = 0 } inblock' "$src/CONTRIBUTING.md" > "$blocks"
field=$(awk '/^\/\* lib\/config\/cli.h, in ompb__config \*\//{getline; print; exit}' "$blocks")
row=$(awk '/^\/\* lib\/config\/cli.c, in options\[\]/{getline; print; getline; print; exit}' "$blocks")
grep -q 'note' <<< "$field" && grep -q '"--note"' <<< "$row" \
  || { echo "FAIL: no --note example in CONTRIBUTING.md"; exit 1; }
# The field after the last one of ompb__config, the row before --help's.
awk -v add="$field" '{ print } /^    bool help, version;$/ { print add }' "$tree/lib/config/cli.h" > "$tmp/cli.h"
mv "$tmp/cli.h" "$tree/lib/config/cli.h"
awk -v add="$row" '/^    \{"--help", ARG_NONE/ { print add } { print }' "$tree/lib/config/cli.c" > "$tmp/cli.c"
mv "$tmp/cli.c" "$tree/lib/config/cli.c"
grep -q 'const char \*note;' "$tree/lib/config/cli.h" && grep -q '"--note"' "$tree/lib/config/cli.c" \
  || { echo "FAIL: could not add the field and the row"; exit 1; }
recipe_files "Adding an option" lib/config/cli.
[ "$(diff "$src/lib/config/cli.c" "$tree/lib/config/cli.c" | grep -c '^>')" -eq 2 ] || { echo "FAIL: the row is not two lines"; exit 1; }
recipe_build examples
ex=$work/build/benches/examples
"$ex" --help | grep -qx "  --note TEXT          a free text for the run's records" \
  || { echo "FAIL: --help does not list --note:"; "$ex" --help; exit 1; }
timeout 120 "$ex" --note "first try" --list > "$tmp/list" || { echo "FAIL: --note TEXT refused"; exit 1; }
cmp -s "$tmp/list" <(timeout 120 "$ex" --list) || { echo "FAIL: --note changed --list"; exit 1; }
refused() {   # refused WORD ARGS...: exit 2 and one line naming WORD
  local word=$1; shift
  set +e
  err=$("$ex" "$@" 2>&1 >/dev/null); rc=$?
  set -e
  [ "$rc" -eq 2 ] && [ "$(wc -l <<< "$err")" -eq 1 ] && grep -qF -- "$word" <<< "$err" \
    || { echo "FAIL: $*: exit $rc, '$err'"; exit 1; }
}
refused "--note: missing value" --list --note
refused "--note: given twice, 'a' and 'b'" --note a --note b --list
refused "--note: empty value" --note= --list
refused "unknown option '--notes'" --notes x
echo "ok: --note from one field and one row"
