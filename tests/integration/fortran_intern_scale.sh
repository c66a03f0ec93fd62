#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Fortran name table is linear (issue 30, item 4, defect 10;
# tests/fortran_intern_scale.c): interning and looking up 4N distinct
# names takes less than 8 times as long as N names (a hashed table: about
# 4; a list walked per lookup: about 16). Both sizes are measured in this
# run, each the least of 5 processes, so no absolute time is assumed.
# Usage: fortran_intern_scale.sh BUILD_DIR SOURCE_DIR
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/fortran_intern_scale
[ -x "$app" ] || { echo "fortran_intern_scale: no $app (no Fortran compiler); skipped"; exit 77; }
least() { # N: the least time of 5 runs, in ns
  local best= t i
  for i in 1 2 3 4 5; do
    t=$(timeout $((60 * mult)) "$app" "$1") || { fail "N=$1: exit status $?"; echo 1; return; }
    [ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
  done
  echo "$best"
}
small=$(least 2000)
large=$(least 8000)
echo "2000 names: $small ns, 8000 names: $large ns"
[ "$large" -lt $((8 * small)) ] ||
  fail "4 times the names took $((large / (small > 0 ? small : 1)))x as long (want below 8x: linear)"
[ "$fails" -eq 0 ] && echo "fortran_intern_scale: ok"
exit $((fails > 0))
