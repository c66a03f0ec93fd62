#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 19, defect 11: an option with a value given twice is refused with
# exit 2 and one line naming both values, instead of the last one winning
# silently; only the options documented as repeatable (compare's --base and
# --head) accumulate. Nothing is run or written.
# Usage: repeated_options.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
bin=$build/benches/examples
tool=$build/tools/ompbench
data=$src/tests/data/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fails=0

# twice WANT CMD...: exit 2, one line holding WANT, no file in $tmp/out.
twice() {
  local want=$1 rc
  shift
  mkdir -p "$tmp/out"
  timeout 60 "$@" > "$tmp/stdout" 2> "$tmp/err"
  rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err" \
     || [ -n "$(ls "$tmp/out")" ]; then
    echo "FAIL: $* (exit $rc, want 2 and one line with '$want'):"; cat "$tmp/err"
    fails=$((fails + 1))
  fi
}

o=$tmp/out
twice "--output: given twice, '$o/a.json' and '$o/b.json'" \
  "$bin" --test --output "$o/a.json" --output "$o/b.json"
twice "--sample-count: given twice, '3' and '4'" "$bin" --test --sample-count 3 --sample-count=4
twice "--counters: given twice, 'task-clock' and 'page-faults'" \
  "$bin" --test --counters task-clock --counters page-faults --output "$o/c.json"
# Documented as narrowing each other: --filter and --exact accumulate.
got=$(timeout 60 "$bin" --list --filter fib --filter 'recursive\[' --exact 'fibonacci_recursive[5]')
[ "$got" = "fibonacci_recursive[5]" ] || { echo "FAIL: accumulated selections gave: $got"; fails=$((fails + 1)); }
twice "--output: given twice, '$o/a' and '$o/b'" \
  "$tool" compare --output "$o/a" --output="$o/b" "$data/base.json" "$data/head.json"
twice "--threshold: given twice, '5' and '10'" \
  "$tool" compare --threshold 5 --threshold 10 "$data/base.json" "$data/head.json"
twice "--svg: given twice, '$o/a.svg' and '$o/b.svg'" \
  "$tool" scaling --svg "$o/a.svg" --svg "$o/b.svg" "$data/scaling.json"
twice "--format: given twice, 'json' and 'markdown'" \
  "$tool" scaling --format json --format markdown "$data/scaling.json"
twice "--json: given twice, '$o/a.json' and '$o/b.json'" \
  "$tool" collect --json "$o/a.json" --json "$o/b.json" -- "$bin" --test
# Documented as repeatable: --base and --head pool files.
timeout 60 "$tool" compare --base "$data/runs_base_a.json" --base "$data/runs_base_b.json" \
  --head "$data/runs_head.json" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: repeated --base refused (exit $rc)"; cat "$tmp/err"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "repeated_options: every repeated option with a value is refused"
[ $fails -eq 0 ]
