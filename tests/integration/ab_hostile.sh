#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench ab` against hostile input (issue 30), on the A/B fixture and
# the stand-in with chosen run values (tests/ab_fake.py), each call
# bounded by timeout(1); no time is asserted. Covers: a report path that
# names an input (a binary, through a symbolic link or another spelling, a
# file a --base-cmd runs), another report or a run file in --keep's
# directory is refused up front (exit 2, nothing written, the binary
# intact); benchmark options after -- that would change what a run is
# (--help, --processes, --repetitions, --output, ...) are refused; a suite
# whose open names go over the kernel's 128 KiB argument limit is run
# through --exact-file and decided; a HEAD of times 0 is said and fails
# the gate; a BASE that crashes in every run is exit status 2; a
# --max-time no run fits is exit status 2; a run interrupted by Ctrl-C has
# its completed instances pooled (exit 130, the report partial).
# Usage: ab_hostile.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/tests/ab_fixture
tool=$build/tools/ompbench
fake=$src/tests/ab_fake.py
[ -x "$bin" ] && [ -x "$tool" ] || { echo "no fixture in this build"; exit 77; }
limit=$((120 * mult))
pids=()
at_exit() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; }
json() { # json FILE CODE: CODE with the document as d
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1"
}
quick=(--sample-count 5 --sample-size 10 --warmup-time 0 --max-time 100ms)
export AB_FAKE_DIR=$tmp
base_cmd="AB_FAKE_SIDE=base $fake"
head_cmd="AB_FAKE_SIDE=head $fake"

# expect2 WHAT PATTERN ARGS...: exit status 2, one line with PATTERN, no report.
expect2() {
  local what=$1 pat=$2 out status
  shift 2
  out=$(cd "$tmp/w" && timeout "$limit" "$tool" ab "$@" 2>&1)
  status=$?
  [ "$status" = 2 ] || fail "$what: exit status $status, want 2 ($out)"
  grep -qF -- "$pat" <<< "$out" || fail "$what: '$out' lacks '$pat'"
  [ "$(grep -vc ': seed [0-9]* (--seed' <<< "$out")" = 1 ] || fail "$what: more than one line: $out"
}

# ---- reports never replace an input, another report or a kept run ----------
mkdir -p "$tmp/w/kd" "$tmp/w/sub"
cp "$bin" "$tmp/w/b"
cp "$bin" "$tmp/w/h"
ln -s b "$tmp/w/blink"
echo keep > "$tmp/w/kd/base-001.json"
expect2 "--output over BASE" "--output: './b' is the same file as BASE './b'" \
  --max-runs 3 --output ./b ./b ./h
expect2 "--markdown over HEAD, another spelling" "is the same file as HEAD './h'" \
  --max-runs 3 --markdown sub/../h ./b ./h
expect2 "--json through a link" "--json: 'blink' is the same file as BASE './b'" \
  --max-runs 3 --json blink ./b ./h
expect2 "--json over --output" "--json: './r' is the same file as --output 'r'" \
  --max-runs 3 --output r --json ./r ./b ./h
expect2 "--json over a kept run" "--json 'kd/base-001.json': is a file ompbench ab writes in --keep 'kd'" \
  --max-runs 3 --keep kd --json kd/base-001.json ./b ./h
expect2 "--output over a kept list" "is a file ompbench ab writes in --keep" \
  --max-runs 3 --keep kd --output ./kd/head.list ./b ./h
expect2 "--output over a file --base-cmd runs" "is the same file as a file --base-cmd runs" \
  --max-runs 3 --base-cmd "exec $tmp/w/b --threads 1" --output "$tmp/w/b" ./h
expect2 "--keep naming a file" "--keep: 'b' is not a writable directory" --keep b ./b ./h
cmp -s "$bin" "$tmp/w/b" && cmp -s "$bin" "$tmp/w/h" || fail "a binary was replaced"
[ "$(cat "$tmp/w/kd/base-001.json")" = keep ] || fail "a kept run was replaced"
[ ! -e "$tmp/w/r" ] || fail "a report was written"
# A report beside the kept runs, under another name, is fine.
timeout "$limit" "$tool" ab --max-runs 3 --keep "$tmp/w/kd" --json "$tmp/w/kd/report.json" \
  "$bin" "$bin" -- "${quick[@]}" --exact slowed > /dev/null 2> "$tmp/kd.err" ||
  fail "--keep with a report beside: $(cat "$tmp/kd.err")"
[ -s "$tmp/w/kd/report.json" ] || fail "no report beside the kept runs"

# ---- benchmark options after -- that change what a run is ---------------------
for opt in --help -h --version --list --processes=3 "--processes 3" "--repetitions 2" \
  "--output x" "--format=json" "--timeout 5s" "--show-plan"; do
  # shellcheck disable=SC2086
  expect2 "-- $opt" "benchmark option '${opt%% *}' after --: refused" ./b ./h -- $opt
done
[ ! -e "$tmp/w/x" ] || fail "-- --output wrote a file"
# A selection whose value looks like an option is still a selection.
out=$(cd "$tmp/w" && timeout "$limit" "$tool" ab ./b ./h -- --filter --help 2>&1)
grep -q "refused" <<< "$out" && fail "-- --filter --help: $out"

# ---- thousands of long names: over the 128 KiB argument limit -----------------
# 1,500 open names of 130 bytes make a --filter of ~200 KiB: ab passes them
# in a file (--exact-file); every run works and every instance is decided.
rm -f "$tmp"/*.n
AB_FAKE_MANY=1500 AB_FAKE_ARGS=$tmp/many.args timeout "$limit" "$tool" ab --max-runs 4 \
  --format json --base-cmd "$base_cmd" --head-cmd "$head_cmd" > "$tmp/many.json" 2> "$tmp/many.err" ||
  fail "1,500 long names: exit status $? ($(tail -2 "$tmp/many.err"))"
json "$tmp/many.json" '
assert d["faults"] == [], d["faults"][:2]
s = d["summary"]
assert s["untouched"] == 1501 and s["noise_unknown"] == 0, s
' || fail "1,500 long names: $(head -c 600 "$tmp/many.json")"
grep -q -- "--exact-file " "$tmp/many.args" || fail "no --exact-file: $(cut -c1-200 "$tmp/many.args")"
# A BASE built before --exact-file: its first run (all instances) works,
# the next three are refused; the runs stop, and that is exit status 2.
rm -f "$tmp"/*.n
AB_FAKE_MANY=1500 timeout "$limit" "$tool" ab --max-runs 6 --format json --output "$tmp/old.json" \
  --base-cmd "AB_FAKE_OLD=1 $base_cmd" --head-cmd "$head_cmd" 2> "$tmp/old.err"
status=$?
[ "$status" = 2 ] || fail "a BASE without --exact-file: exit status $status ($(tail -1 "$tmp/old.err"))"
grep -q "BASE failed 3 runs in a row (the last: exit status, exit status 2: ab_fake.py: unknown option '--exact-file'" \
  "$tmp/old.err" || fail "a BASE without --exact-file: $(cat "$tmp/old.err")"
grep -q "warning: 3 of [0-9]* runs crashed, failed to run" "$tmp/old.err" ||
  fail "a BASE without --exact-file: no warning: $(cat "$tmp/old.err")"
# The benchmark binary's --exact-file: exact names, one a line.
printf 'slowed\nslow\nsteady_sum\n\n' > "$tmp/names"
got=$("$bin" --list --exact-file "$tmp/names" | tr '\n' ' ')
[ "$got" = "slowed steady_sum " ] || fail "--exact-file: $got"
"$bin" --list --exact-file "$tmp/none" > /dev/null 2> "$tmp/none.err"
[ $? = 2 ] && grep -q "^.*--exact-file: cannot read '$tmp/none'" "$tmp/none.err" ||
  fail "--exact-file of a missing file: $(cat "$tmp/none.err")"

# ---- exit statuses say what happened --------------------------------------------
# A HEAD of times 0: said on stderr, and the gate does not pass it.
rm -f "$tmp"/*.n
timeout "$limit" "$tool" ab --max-runs 3 --fail-on-regression --format json \
  --base-cmd "$base_cmd" --head-cmd "AB_FAKE_ZERO=1 $head_cmd" > "$tmp/zero.json" 2> "$tmp/zero.err"
status=$?
[ "$status" = 1 ] || fail "HEAD of times 0 with --fail-on-regression: exit status $status"
grep -q "warning: HEAD gave a time of 0 (or none) for 2 instances" "$tmp/zero.err" ||
  fail "HEAD of times 0: nothing said: $(cat "$tmp/zero.err")"
json "$tmp/zero.json" 'assert d["summary"]["no_ratio"] == 2, d["summary"]'
grep -q " 0 instance-runs" < <(timeout "$limit" "$tool" ab --max-runs 3 --base-cmd "$base_cmd" \
  --head-cmd "AB_FAKE_ZERO=1 $head_cmd" 2> /dev/null) && fail "HEAD of times 0: 0 instance-runs"
# A BASE that crashes in every run compared nothing: 2, under the gate too.
for gate in "" --fail-on-regression; do
  timeout "$limit" "$tool" ab --max-runs 3 $gate --format json --output "$tmp/crash.json" \
    --base-cmd "AB_FAKE_CRASH=1 $base_cmd" --head-cmd "$head_cmd" 2> "$tmp/crash.err"
  status=$?
  [ "$status" = 2 ] || fail "BASE crashing ($gate): exit status $status ($(cat "$tmp/crash.err"))"
  grep -q "BASE: none of its 3 runs gave a usable result file (the last: crashed" "$tmp/crash.err" ||
    fail "BASE crashing: $(cat "$tmp/crash.err")"
  [ -s "$tmp/crash.json" ] || fail "BASE crashing: no report of the faults"
done
# A budget that no run fits in: 2.
# The line names the option as it was typed.
expect2 "--time 1ns" "--time 1ns: the budget ended before BASE's first run" \
  --time 1ns --base-cmd "$base_cmd" --head-cmd "$head_cmd"
expect2 "--max-time 1ns" "--max-time 1ns: the budget ended before BASE's first run" \
  --max-time 1ns --base-cmd "$base_cmd" --head-cmd "$head_cmd"

# ---- Ctrl-C: the instances an interrupted run completed are pooled -------------
# HEAD's second run holds until SIGINT, then writes `steady` (completed),
# marked partial, and dies of the signal, as the harness does.
rm -f "$tmp"/*.n "$tmp/held"
timeout "$limit" "$tool" ab --min-runs 40 --max-runs 40 --format json --output "$tmp/int.json" \
  --base-cmd "$base_cmd" --head-cmd "AB_FAKE_HOLD=1 $head_cmd" 2> "$tmp/int.err" &
pid=$!
pids+=("$pid")
for _ in $(seq 1 $((300 * mult))); do [ -e "$tmp/held" ] && break; sleep 0.1; done
[ -e "$tmp/held" ] || fail "Ctrl-C: HEAD's second run did not start"
kill -INT "$pid" 2>/dev/null
wait "$pid"
status=$?
[ "$status" = 130 ] || fail "Ctrl-C: exit status $status ($(cat "$tmp/int.err"))"
json "$tmp/int.json" '
assert d["partial"], d["stop_reason"]
assert d["head"]["runs"] == 2 and d["head"]["pooled"] == 2, d["head"]
rows = {r["name"]: r for r in d["instances"]}
assert rows["steady"]["head_runs"] == 2 and rows["wild"]["head_runs"] == 1, rows
f = d["faults"]
assert len(f) == 1 and f[0]["outcome"] == "interrupted" and "completed are pooled" in f[0]["detail"], f
' || fail "Ctrl-C: $(cat "$tmp/int.json" | head -c 800)"
[ "$fails" = 0 ] && echo "ab_hostile: ok"
exit $((fails > 0))
