#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# User counters at the edge of a double (issue 30, item 4, defect 3;
# tests/extremes_fixture.c): DBL_MAX, the smallest subnormal and 0.1 come
# back exactly from the JSON and CSV reports and from `ompbench convert`
# (a value rounded above DBL_MAX made every reader refuse the file); the
# tools read the file (convert, compare, report); a rate that overflows a
# double is empty (JSON null) and its entry carries the `overflow` mark.
# Usage: counter_extremes.sh BUILD_DIR SOURCE_DIR
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/tests/extremes_fixture
tool=$build/tools/ompbench
[ -x "$bin" ] || { echo "counter_extremes: no $bin; skipped"; exit 77; }
args=(--threads 2 --sample-count 3 --warmup-time 0s --min-time 50us --max-time 300ms)
run() { timeout $((120 * mult)) "$@"; }

run "$bin" "${args[@]}" --format json --output "$tmp/r.json" 2> "$tmp/err" ||
  fail "json run: exit status $? ($(cat "$tmp/err"))"
run "$bin" "${args[@]}" --format csv --output "$tmp/r.csv" 2> "$tmp/err" ||
  fail "csv run: exit status $? ($(cat "$tmp/err"))"
run "$tool" convert "$tmp/r.json" --format csv --output "$tmp/c.csv" 2> "$tmp/err" ||
  fail "convert: exit status $? ($(cat "$tmp/err"))"
run "$tool" compare "$tmp/r.json" "$tmp/r.json" > "$tmp/cmp.txt" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "compare: exit status $rc ($(cat "$tmp/err"))"
run "$tool" report "$tmp/r.json" --output "$tmp/r.html" 2> "$tmp/err" ||
  fail "report: exit status $? ($(cat "$tmp/err"))"

python3 - "$tmp/r.json" "$tmp/r.csv" "$tmp/c.csv" <<'PY' || fail "values do not round-trip"
import csv, json, math, sys
MAX, SUB = sys.float_info.max, 5e-324
want = {"huge": MAX, "subnormal": SUB, "tenth": 0.1}
bad = 0
def check(where, key, got):
    global bad
    if float(got) != want[key]:
        print(f"{where}: {key} = {got!r}, want {want[key]!r}", file=sys.stderr)
        bad = 1
d = json.load(open(sys.argv[1]))
its = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
for b in its.values():
    for key in want:
        if key in b:
            check("json " + b["name"], key, b[key])
            for v in b["ompbench"]["user_counters"][key]["rounds"]:
                check("json round " + b["name"], key, v)
r = its["huge_rate[t=2]"]
if r.get("big_rate") is not None or "overflow" not in r["ompbench"].get("marks", []):
    print("json: an overflowing rate must be null and marked overflow:",
          r.get("big_rate"), r["ompbench"].get("marks"), file=sys.stderr)
    bad = 1
for path in sys.argv[2:]:
    rows = list(csv.DictReader(open(path)))
    for row in rows:
        for key in want:
            if row.get(key):
                check(path + " " + row["name"], key, row[key])
    seen = [row for row in rows if row["name"].startswith("huge[")]
    if not seen or not seen[0].get("huge"):
        print(path + ": no huge column", file=sys.stderr)
        bad = 1
    rate = [row for row in rows if row["name"].startswith("huge_rate[")]
    if not rate or "overflow" not in rate[0].get("marks", ""):
        print(path + ": huge_rate not marked overflow", file=sys.stderr)
        bad = 1
sys.exit(bad)
PY
[ "$fails" -eq 0 ] && echo "counter_extremes: ok"
exit $((fails > 0))
