#!/usr/bin/env bash
# One run, console and file (issue 23: 2): --output FILE --output-format
# json|csv writes the file while the console table goes to standard output,
# both from the same measurements; --output alone keeps writing --format's
# report to the file only; contradictory combinations are one line, exit 2
# and no file. Bounded: short budgets, timeouts.
set -uo pipefail
build=$1
bin="$build/tests/ucounter_fixture"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fail=0
run() { timeout 120 "$@"; }
args=(--filter '^(total|per_item)' --threads 2 --sample-count 3 --warmup-time 0s --max-time 200ms)

# 1. JSON file + console table from one run: the same rounds in both.
run "$bin" "${args[@]}" --output "$tmp/r.json" --output-format json > "$tmp/out.txt" 2> "$tmp/err" ||
  { echo "FAIL: --output-format json exited $?"; cat "$tmp/err"; fail=1; }
grep -Eq '^benchmark +T +median' "$tmp/out.txt" ||
  { echo "FAIL: no console table on standard output"; cat "$tmp/out.txt"; fail=1; }
python3 - "$tmp/r.json" "$tmp/out.txt" <<'PY' || { echo "FAIL: the file and the table differ"; fail=1; }
import json, re, sys
d = json.load(open(sys.argv[1]))
its = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
rows = {}
for line in open(sys.argv[2]):
    m = re.match(r"^(\S+\[t=2\]) +2 .* (\d+) x (\d+) ", line)
    if m:
        rows[m.group(1)] = (int(m.group(2)), int(m.group(3)))
assert {b["name"] for b in its} == set(rows) == {"total[t=2]", "per_item[t=2]"}, (rows, its)
for b in its:  # rounds x sample size on the console are the file's
    assert rows[b["name"]] == (b["ompbench"]["rounds"], b["ompbench"]["sample_size"]), b["name"]
PY

# 2. CSV file + a JSON report on standard output (--format still names it).
run "$bin" "${args[@]}" --format json --output "$tmp/r.csv" --output-format csv > "$tmp/out.json" 2> /dev/null
head -n 1 "$tmp/r.csv" | grep -q '^name,uri,threads,' || { echo "FAIL: the file is not CSV"; fail=1; }
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/out.json" ||
  { echo "FAIL: standard output is not --format json"; fail=1; }

# 3. --output alone: the file only, as before.
run "$bin" "${args[@]}" --format csv --output "$tmp/only.csv" > "$tmp/none.txt" 2> /dev/null
[ -s "$tmp/only.csv" ] && [ ! -s "$tmp/none.txt" ] ||
  { echo "FAIL: --output alone wrote to standard output or no file"; fail=1; }

# 4. Refusals: exit 2, one line naming the value, nothing written.
refuse() {  # refuse NEEDLE ARGS...: exit 2, NEEDLE in stderr, no $tmp/x
  local needle=$1; shift
  rm -f "$tmp/x"
  run "$bin" "${args[@]}" "$@" > "$tmp/o" 2> "$tmp/e"
  local rc=$?
  [ $rc -eq 2 ] && grep -qF -- "$needle" "$tmp/e" && [ ! -e "$tmp/x" ] ||
    { echo "FAIL: $* -> exit $rc, expected 2 with '$needle'"; cat "$tmp/e"; fail=1; }
}
refuse "--output-format json: no --output FILE" --output-format json
refuse "--output-format: unknown format 'xml' (accepted: console, json, csv)" --output "$tmp/x" --output-format xml
refuse "is standard output itself" --output /dev/stdout --output-format csv
refuse "--output-format" --output "$tmp/x" --output-format json --output-format csv
[ $fail -eq 0 ] && echo "output_format: one run, console and file"
exit $fail
