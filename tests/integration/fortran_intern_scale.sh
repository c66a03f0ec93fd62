#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Fortran name table is linear (issue 30, item 4, defect 10;
# tests/fortran_intern_scale.c): interning and looking up 4N distinct
# names takes less than 9 times as long as N names (a hashed table: about
# 4; a list walked per lookup: about 16). Both sizes are measured in this
# run, each the least of 7 processes, in CPU time (preemption by other
# programs does not count), so no absolute time is assumed.
# Usage: fortran_intern_scale.sh BUILD_DIR SOURCE_DIR
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/fortran_intern_scale
[ -x "$app" ] || { echo "fortran_intern_scale: no $app (no Fortran compiler); skipped"; exit 77; }
# The least time of 7 runs of each size, interleaved, so that a busy
# moment of the machine weighs on both alike.
small= large=
for i in 1 2 3 4 5 6 7; do
  for n in 3000 12000; do
    t=$(timeout $((120 * mult)) "$app" "$n") || { fail "N=$n: exit status $?"; break 2; }
    if [ "$n" -eq 3000 ]; then
      [ -z "$small" ] || [ "$t" -lt "$small" ] && small=$t
    else
      [ -z "$large" ] || [ "$t" -lt "$large" ] && large=$t
    fi
  done
done
if [ -n "$small" ] && [ -n "$large" ]; then
  echo "3000 names: $small ns, 12000 names: $large ns of CPU time"
  [ "$large" -lt $((9 * small)) ] ||
    fail "4 times the names took $((large / (small > 0 ? small : 1)))x as long (want below 9x: linear)"
fi
[ "$fails" -eq 0 ] && echo "fortran_intern_scale: ok"
exit $((fails > 0))
