#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# --repetitions, --processes and --seed on the example suite: the JSON shape
# (one entry per repetition, Google Benchmark's aggregates, the process of
# each), the console and CSV forms, the seed in the header, process-level
# repetitions leaving no temporary file behind (also when interrupted, or
# when a child dies), and bad values. Mechanics only: no figure is checked.
# Usage: repetitions.sh BUILD_DIR SOURCE_DIR
fail_fast=1
. "$(dirname "$0")/lib.sh" "$@"
set -e
bin=$build/benches/examples
py=/usr/bin/python3
export TMPDIR=$tmp/tmpdir # where --processes puts its temporary directory
mkdir "$TMPDIR"
has() { grep -qF -- "$1" "$2" || { cat "$2" >&2; fail "'$1' not in $2"; }; }
no_temp_left() { [ -z "$(ls -A "$TMPDIR")" ] || fail "left in TMPDIR: $(ls -A "$TMPDIR")"; }
quick=(--filter '^count_set_bits\[(0|42)\]$' --sample-count 6 --warmup-time 0 --min-time 100us
       --max-time 60ms)

# In-process repetitions: JSON.
timeout 60 "$bin" "${quick[@]}" --repetitions 3 --seed 5 --format json --output "$tmp/r.json"
"$py" - "$tmp/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
run = d["context"]["ompbench"]["run"]
assert run == {"repetitions": 3, "processes": 1, "interleaved": True, "seed": "5"}, run
for name in ("count_set_bits[0]", "count_set_bits[42]"):
    its = [b for b in d["benchmarks"] if b["name"] == name]
    assert [b["repetition_index"] for b in its] == [0, 1, 2], its
    assert all(b["repetitions"] == 3 and b["run_type"] == "iteration" for b in its)
    # 6 rounds split three ways: 2 each, fewer when the budget runs out.
    assert all(1 <= b["ompbench"]["rounds"] <= 2 and b["ompbench"]["process"] == 0 for b in its)
    aggs = [b for b in d["benchmarks"] if b.get("run_name") == name and b["run_type"] == "aggregate"]
    assert [a["aggregate_name"] for a in aggs] == ["mean", "median", "stddev", "cv"], aggs
    reals = sorted(b["real_time"] for b in its)
    assert abs(aggs[1]["real_time"] - reals[1]) < 1e-9 * reals[1], (aggs[1], reals)
    assert aggs[0]["iterations"] == 3
PY

# Console: the seed in the header, the spread next to the median; CSV: one
# row per repetition with its index.
timeout 60 "$bin" "${quick[@]}" --repetitions 2 --seed 77 > "$tmp/c.txt"
has "repeats:    2 repetitions per instance, interleaved, seed 77 (replay: --seed 77)" "$tmp/c.txt"
has "±run" "$tmp/c.txt"
has "±run: their stdev / mean (within-process spread: all repetitions ran in one process" "$tmp/c.txt"
has "reps x rounds x iters" "$tmp/c.txt"
timeout 60 "$bin" "${quick[@]}" --repetitions 2 --format csv > "$tmp/c.csv"
head -1 "$tmp/c.csv" | grep -q '^name,uri,threads,repetition,process,rounds,' || fail "CSV header"
[ "$(grep -c '^"count_set_bits' "$tmp/c.csv")" = 4 ] || fail "CSV rows: $(cat "$tmp/c.csv")"
grep -q '^"count_set_bits\[42\]",[^,]*,[0-9]*,1,0,' "$tmp/c.csv" || fail "CSV repetition 1 row"

# Process-level repetitions: repetition r ran in process r mod P; nothing
# is left in TMPDIR.
timeout 60 "$bin" "${quick[@]}" --repetitions 4 --processes 2 --format json --output "$tmp/p.json"
no_temp_left
"$py" - "$tmp/p.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["context"]["ompbench"]["run"]["processes"] == 2
its = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert len(its) == 8, len(its)
for b in its:
    assert b["ompbench"]["process"] == b["repetition_index"] % 2, b
PY
timeout 60 "$bin" --filter '^count_set_bits' --processes 2 --test > /dev/null
no_temp_left

# Ctrl-C (SIGINT to the whole process group, as a terminal sends it): the
# run writes what the children handed over, marked partial, and dies of it;
# no temporary file. A SIGTERM to the parent alone is passed on to the
# running child. (A background job of a script
# starts with SIGINT ignored; the wrapper restores the default a terminal's
# foreground job has, in a process group of its own.)
long=(--filter '^count_set_bits' --processes 3 --max-time 2s --sample-count 1000)
foreground=(setsid "$py" -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])')
for sig in INT TERM; do
  "${foreground[@]}" "$bin" "${long[@]}" --format json --output "$tmp/never.json" \
    > /dev/null 2> "$tmp/sig.err" &
  pid=$!
  # wait until a child runs (at most 10 s x OMPB_TEST_TIMEOUT_MULTIPLIER)
  for _ in $(seq 1 $((100 * mult))); do
    pgrep -P "$pid" > /dev/null && break
    sleep 0.1
  done
  pgrep -P "$pid" > /dev/null || fail "no child process appeared"
  if [ "$sig" = INT ]; then kill -INT -- "-$pid"; else kill -TERM "$pid"; fi
  set +e
  timeout 30 tail --pid="$pid" -f /dev/null
  wait "$pid"
  status=$?
  set -e
  want=$((128 + $(kill -l "$sig")))
  [ "$status" = "$want" ] || fail "SIG$sig: exit status $status, expected $want"
  no_temp_left
  "$py" - "$tmp/never.json" "SIG$sig" <<'PY' || fail "SIG$sig: the output file is not the partial report"
import json, sys
ctx = json.load(open(sys.argv[1]))["context"]
assert ctx.get("partial") is True and ctx.get("interrupted_by") == sys.argv[2], ctx
PY
  rm -f "$tmp/never.json"
done

# A child that dies: reported, its repetitions failed, the run goes on with
# the next process, exit status 1, the report still written.
"$bin" --filter '^count_set_bits\[(0|42)\]$' --processes 2 --max-time 2s --sample-count 1000 \
  --format json --output "$tmp/k.json" 2> "$tmp/k.err" &
pid=$!
child=""
for _ in $(seq 1 $((100 * mult))); do
  child=$(pgrep -P "$pid" || true)
  [ -n "$child" ] && break
  sleep 0.1
done
[ -n "$child" ] || fail "no child process appeared"
kill -KILL "$child"
set +e
timeout 60 tail --pid="$pid" -f /dev/null
wait "$pid"
status=$?
set -e
[ "$status" = 1 ] || fail "killed child: exit status $status, expected 1"
has "ompbench: process 1 of 2 killed by signal 9 (Killed) without results; its repetitions count as failed" "$tmp/k.err"
no_temp_left
"$py" - "$tmp/k.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
its = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
bad = [b for b in its if b.get("error_occurred")]
assert len(its) == 4 and len(bad) == 2, its
assert all(b["repetition_index"] == 0 for b in bad), bad
assert all("process 1 of 2 killed by signal 9" in b["error_message"] for b in bad), bad
assert not any(b["run_type"] == "aggregate" for b in d["benchmarks"])
PY

# No usable temporary directory: one line, status 2, nothing run.
set +e
TMPDIR=$tmp/no/such/dir "$bin" --processes 2 --test --output "$tmp/never.json" > "$tmp/out" 2> "$tmp/err"
status=$?
set -e
[ "$status" = 2 ] || fail "unusable TMPDIR: exit status $status"
grep -q "^.*: --processes: cannot create a temporary directory in '$tmp/no/such/dir': No such file or directory (set TMPDIR to a writable directory)$" "$tmp/err" ||
  fail "unusable TMPDIR: $(cat "$tmp/err")"
[ ! -e "$tmp/never.json" ] || fail "unusable TMPDIR left an output file"

# Bad values: one line naming the value and what is accepted, status 2.
for args in "--repetitions 0" "--repetitions 2 --processes 3" "--seed x"; do
  set +e
  # shellcheck disable=SC2086
  "$bin" $args --test > "$tmp/out" 2> "$tmp/err"
  status=$?
  set -e
  [ "$status" = 2 ] || fail "$args: exit status $status"
  [ "$(wc -l < "$tmp/err")" = 1 ] || fail "$args: $(cat "$tmp/err")"
  grep -q "accepted" "$tmp/err" || fail "$args: $(cat "$tmp/err")"
done
echo "repetitions: ok"
