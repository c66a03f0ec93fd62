#!/usr/bin/env bash
# ompbench convert (issue 23: 2; issue 31, item 1): a run's JSON converted to
# JSON is the same text (benchmarks with --counters and user counters,
# application regions); converted to CSV it is the run's own CSV of the
# same run (written beside it with --output-format); to console the run's
# own table. Bad input is one line, exit 2, no output
# file. Bounded: short budgets, timeouts.
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fail=0
run() { timeout 120 "$@"; }

# 1. A benchmark run with --counters and user counters: JSON file + CSV on stdout.
run "$build/tests/ucounter_fixture" --threads 2 --sample-count 3 --warmup-time 0s --max-time 200ms \
  --counters task-clock --format csv --output "$tmp/b.json" --output-format json > "$tmp/b.csv" 2> "$tmp/err" ||
  [ $? -eq 1 ] || { echo "FAIL: the fixture run"; cat "$tmp/err"; fail=1; }  # 1: `reserved` fails
run "$tool" convert "$tmp/b.json" --format json --output "$tmp/b2.json" &&
  cmp -s "$tmp/b.json" "$tmp/b2.json" || { echo "FAIL: json -> json is not the same text"; fail=1; }
run "$tool" convert "$tmp/b.json" --format csv > "$tmp/b2.csv" || { echo "FAIL: convert to csv"; fail=1; }
# Every successful row and the header equal the run's CSV.
diff <(grep -v '^"reserved' "$tmp/b.csv") <(grep -v '^"reserved' "$tmp/b2.csv") > "$tmp/d" ||
  { echo "FAIL: converted CSV differs from the run's"; cat "$tmp/d"; fail=1; }
grep -q '^"reserved\[t=2\]",.*,"reserved\[t=2\]: thread 0: ompb_counter' "$tmp/b2.csv" ||
  { echo "FAIL: the failed row lost its message"; fail=1; }
# The console table is the run's own, every unit kind as the run prints it
# (issue 32, item 5: task-clock as a duration, context switches as a count,
# user counters with their SI prefix and "/s", rates, shares, marks): a run
# that prints its table and writes its JSON, converted, gives the same
# table (the run's context header is a "converted from" line then).
run "$build/tests/ucounter_fixture" --threads 2 --sample-count 3 --warmup-time 0s --max-time 200ms \
  --counters task-clock,context-switches --format console --output "$tmp/c.json" \
  --output-format json > "$tmp/c.txt" 2> "$tmp/err" ||
  [ $? -eq 1 ] || { echo "FAIL: the console run"; cat "$tmp/err"; fail=1; }
run "$tool" convert "$tmp/c.json" --format console > "$tmp/c2.txt" || { echo "FAIL: convert to console"; fail=1; }
head -1 "$tmp/c2.txt" | grep -q '^converted from: executable ' ||
  { echo "FAIL: no converted-from line"; head -2 "$tmp/c2.txt"; fail=1; }
diff <(sed -n '/^benchmark /,$p' "$tmp/c.txt") <(sed -n '/^benchmark /,$p' "$tmp/c2.txt") > "$tmp/d" ||
  { echo "FAIL: the converted console table differs from the run's"; cat "$tmp/d"; fail=1; }
grep -Eq '^benchmark +T +median .* task-clock +context-switches .*lookups' "$tmp/c2.txt" &&
  grep -Eq '^per_thread\[t=2\] .* 15 ' "$tmp/c2.txt" && grep -q '^reserved\[t=2\] .*FAILED: ' "$tmp/c2.txt" &&
  grep -Eq ' [0-9.]+ [mun]?s\*? ' "$tmp/c2.txt" ||
  { echo "FAIL: the console table"; cat "$tmp/c2.txt"; fail=1; }

# 2. An application region report round-trips too.
OMPB_REGIONS_FORMAT=json OMPB_REGIONS_OUTPUT="$tmp/r.json" run "$build/tests/region_app" first-use \
  > /dev/null 2>&1
if [ -s "$tmp/r.json" ]; then
  run "$tool" convert "$tmp/r.json" --format json > "$tmp/r2.json" && cmp -s "$tmp/r.json" "$tmp/r2.json" ||
    { echo "FAIL: region json -> json"; fail=1; }
  run "$tool" convert "$tmp/r.json" --format console > "$tmp/r.txt" && grep -Eq '^region:par\[t=2\] .* inst ' "$tmp/r.txt" ||
    { echo "FAIL: region console"; cat "$tmp/r.txt"; fail=1; }
else
  echo "FAIL: region_app wrote no report"; fail=1
fi

# A phase region (its "phase" object) round-trips too.
OMP_NUM_THREADS=2 OMPB_REGIONS_FORMAT=json OMPB_REGIONS_OUTPUT="$tmp/p.json" run "$build/tests/region_app" \
  phase-mixed > /dev/null 2>&1
grep -q '"phase"' "$tmp/p.json" && run "$tool" convert "$tmp/p.json" --format json > "$tmp/p2.json" &&
  cmp -s "$tmp/p.json" "$tmp/p2.json" || { echo "FAIL: phase region json -> json"; fail=1; }

# 3. Refusals: exit 2, one line naming the value, no output file.
refuse() {  # refuse NEEDLE ARGS...
  local needle=$1; shift
  rm -f "$tmp/x"
  run "$tool" convert "$@" > /dev/null 2> "$tmp/e"
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$needle" "$tmp/e" && [ ! -e "$tmp/x" ] && [ "$(wc -l < "$tmp/e")" -eq 1 ] ||
    { echo "FAIL: convert $* -> exit $rc, expected 2 with '$needle'"; cat "$tmp/e"; fail=1; }
}
refuse "invalid value 'xml' (accepted: console, csv, json)" "$tmp/b.json" --format xml --output "$tmp/x"
refuse "expected a result file and --format FMT" "$tmp/b.json" --output "$tmp/x"
refuse "not a JSON result file" "$tmp/b.csv" --format json --output "$tmp/x"
refuse "not a JSON result file" "$tmp/none.json" --format json --output "$tmp/x"
echo '{"benchmarks": [{"real_time": 1}]}' > "$tmp/bad.json"
refuse "bad.json: benchmarks[0]: Object item not found: name" "$tmp/bad.json" --format csv --output "$tmp/x"
echo '{"benchmarks": [{"name": "a", "ompbench": {"stats": {"median_ns": "fast"}}}]}' > "$tmp/bad2.json"
refuse "bad2.json: benchmarks[0].ompbench.stats: a figure is not a number or null" "$tmp/bad2.json" --format console --output "$tmp/x"
cp "$tmp/b.json" "$tmp/same.json"
refuse "--output" "$tmp/same.json" --format csv --output "$tmp/same.json"
cmp -s "$tmp/b.json" "$tmp/same.json" || { echo "FAIL: the input was overwritten"; fail=1; }
refuse "--format" "$tmp/b.json" --format csv --format json --output "$tmp/x"
[ $fail -eq 0 ] && echo "convert: json, csv and console from result files"
exit $fail
