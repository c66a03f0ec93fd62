#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Output that goes to standard output must arrive: with stdout full
# (/dev/full, opened by the shell) or closed (>&-), every command that
# prints there exits non-zero with one line naming the problem, instead of
# exit 0 with the output lost. Usage: stdout_errors.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
bin=$build/benches/examples
tool=$build/tools/ompbench
data=$src/tests/data/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
one='^count_set_bits\[42\]$'

# check NAME CMD...: CMD with stdout on /dev/full, then closed.
check() {
  local name=$1 rc
  shift
  timeout 60 "$@" > /dev/full 2> "$tmp/err"
  rc=$?
  if [ $rc -eq 0 ] || ! grep -q "cannot write standard output: No space left on device" "$tmp/err"; then
    echo "FAIL: $name >/dev/full: exit $rc"; cat "$tmp/err"; fails=$((fails + 1))
  fi
  timeout 60 "$@" >&- 2> "$tmp/err"
  rc=$?
  if [ $rc -eq 0 ] || ! grep -qE "cannot write standard output|cannot write the report" "$tmp/err"; then
    echo "FAIL: $name >&-: exit $rc"; cat "$tmp/err"; fails=$((fails + 1))
  fi
}

check "--list" "$bin" --list
check "--help" "$bin" --help
check "--version" "$bin" --version
check "--show-plan" "$bin" --show-plan --filter "$one"
check "console report" "$bin" --filter "$one" --test
check "ompbench --help" "$tool" --help
check "ompbench --version" "$tool" --version
check "compare" "$tool" compare "$data/base.json" "$data/head.json"
check "compare --help" "$tool" compare --help
check "scaling" "$tool" scaling "$data/scaling.json"
check "scaling --help" "$tool" scaling --help
check "collect" "$tool" collect -- "$bin" --filter "$one" --test --format json --output "$tmp/r.json"
check "collect --help" "$tool" collect --help
# A verdict is no excuse: compare --fail-on-regression exits 2, not 1.
timeout 60 "$tool" compare --fail-on-regression "$data/base.json" "$data/head.json" > /dev/full 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || { echo "FAIL: compare --fail-on-regression >/dev/full: exit $rc, want 2"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "stdout_errors: a full or closed stdout is an error everywhere"
[ $fails -eq 0 ]
