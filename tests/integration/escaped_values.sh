#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 19, defect 5: a value echoed in a message (an option's value, a
# counter unit read from a result file) has its control characters escaped
# as \xNN, so every refusal stays one line and cannot drive the terminal.
# Usage: escaped_values.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
bin=$build/benches/examples
tool=$build/tools/ompbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fails=0
nl=$(printf 'a\nb')
esc=$(printf '\033[2J')

# one_line WANT CMD...: exit 2, exactly one line on stderr, which holds
# WANT (fixed text) and no control character. libgomp's own complaint about
# OMP_NUM_THREADS (after an empty line) is not ours.
one_line() {
  local want=$1 rc
  shift
  timeout 60 "$@" > "$tmp/out" 2> "$tmp/all"
  rc=$?
  grep -v -e '^libgomp: ' -e '^$' "$tmp/all" > "$tmp/err"
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err" \
     || LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n' < "$tmp/err"); then
    echo "FAIL: $* (exit $rc, want 2 and one line with '$want'):"; cat -A "$tmp/err"
    fails=$((fails + 1))
  fi
}

one_line "'a\\x0ab' matches no instance" "$bin" --filter "$nl"
one_line "'(a\\x0ab'" "$bin" --filter "($nl"
one_line "--sample-count: invalid value '1\\x0a2'" "$bin" --sample-count "$(printf '1\n2')"
one_line "--threads: invalid value '1,\\x0a2'" "$bin" --threads "$(printf '1,\n2')"
one_line "\\x1b[2J" "$bin" --counters "task-clock,$esc"
one_line "--max-time: invalid duration '1\\x0ds'" "$bin" --max-time "$(printf '1\rs')"
one_line "unknown option '--x\\x0ay'" "$bin" "$(printf -- '--x\ny')"
one_line "OMP_NUM_THREADS: invalid value '2\\x0a,'" env OMP_NUM_THREADS="$(printf '2\n,')" "$bin"
one_line "--threshold: invalid value '5\\x0a%'" "$tool" compare --threshold "$(printf '5\n%%')" a b
one_line "--format: invalid value 'x\\x0ay'" "$tool" scaling --format "$(printf 'x\ny')" a
one_line "unknown command 'x\\x0ay'" "$tool" "$(printf 'x\ny')"
one_line "--mode: invalid value 'a\\x0ab'" "$tool" collect --mode "$nl" -- true
one_line "\\x0a" "$tool" compare "$tmp/$nl.json" "$tmp/$nl.json"

# A counter unit with a newline and an escape sequence, read from a result
# file (what the result-file fuzzer stopped on).
python3 - "$src/fuzz/corpus/resultfile/ompbench_counters.json" "$tmp/unit.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    c = b.get("ompbench", {}).get("counters")
    if c:
        c["units"][1] = "co\nunt\x1b[31m"
json.dump(d, open(sys.argv[2], "w"))
PY
one_line "has unit \"co\\x0aunt\\x1b[31m\"" "$tool" compare --metric instructions "$tmp/unit.json" "$tmp/unit.json"
one_line "has unit \"co\\x0aunt\\x1b[31m\"" "$tool" scaling --metric instructions "$tmp/unit.json"

[ $fails -eq 0 ] && echo "escaped_values: every echoed value is escaped, every refusal one line"
[ $fails -eq 0 ]
