#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Marks end to end, each provoked for real and read where people read the
# numbers: the console row's marks column and its legend line, the CSV's
# marks column and the JSON's ompbench.marks (iteration and aggregate
# entries). tests/marks_fixture.c provokes:
# - nested_region: a harness-team body that opens a parallel region;
# - team_width: a caller-team body whose region asks for another width;
# - unoptimized: a benchmark file built at -O0 (and one warning on stderr);
# - oversubscribed: --threads 2 under taskset -c 0 (host-independent);
# - cpu_share: a busy loop pinned to PU 0 beside a t=1 run pinned there too
#   (a CPU share near 0.5, far below the 0.8 threshold whatever else runs);
# - one_value: an application region seen once (a program built here).
# The clean benchmark carries no mark, and marks absent from a run get no
# legend line.
set -uo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
hog=""
cleanup() {
  [ -n "$hog" ] && kill "$hog" 2> /dev/null && wait "$hog" 2> /dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS OMP_WAIT_POLICY
export OMPB_RUNNER_CTL_FIFO=/nonexistent/ompb-marks.ctl OMPB_RUNNER_ACK_FIFO=/nonexistent/ompb-marks.ack
fixture=$build/tests/marks_fixture
command -v taskset > /dev/null || { echo "skip: no taskset"; exit 77; }

# run NAME ARGS...: the fixture in each format, NAME.{txt,csv,json} and
# NAME.err (of the console run).
run() {
  local name=$1
  shift
  local fmt
  for fmt in console csv json; do
    local ext=$fmt
    [ "$fmt" = console ] && ext=txt
    if ! timeout 120 "$@" --format "$fmt" > "$tmp/$name.$ext" 2> "$tmp/$name.$fmt.err"; then
      echo "FAIL: $name ($fmt): run failed"; cat "$tmp/$name.$fmt.err"; fail=1
    fi
  done
  cp "$tmp/$name.console.err" "$tmp/$name.err"
}

# check NAME 'instance=code,code;...' [exact]: every format shows these marks
# for these instances (exactly these with "exact", else at least these);
# instances not named have none (exact) and the console has a legend line
# for each mark shown and none for others.
check() {
  python3 - "$tmp/$1" "$2" "${3:-}" <<'PY' || fail=1
import csv, json, sys
base, spec, exact = sys.argv[1], sys.argv[2], sys.argv[3] == "exact"
letters = {"few_rounds": "R", "cpu_share": "C", "oversubscribed": "O", "nested_region": "N",
           "team_width": "W", "unoptimized": "U", "one_value": "1", "calibration": "D"}
want = {}
for part in spec.split(";"):
    name, _, codes = part.rpartition("=")
    want[name] = set(c for c in codes.split(",") if c)
errors = []
# A build of the whole tree without optimization (the sanitizer build, Debug)
# compiles every benchmark file without -O: all of them carry the mark.
everywhere = set()
if json.load(open(base + ".json"))["context"]["ompbench"].get("optimized") is False:
    everywhere = {"unoptimized"}
def compare(where, name, got):
    # regions are not benchmark files: no OMPB_BENCH, no such mark
    w = want.get(name, set()) | (set() if name.startswith("region:") else everywhere)
    ok = got == w if exact or name not in want else w <= got
    if not ok:
        errors.append("%s: %s has marks %s, want %s%s" % (where, name, sorted(got), sorted(w),
                                                          "" if exact else " at least"))
# JSON: iteration entries, and the aggregates carry the instance's marks
doc = json.load(open(base + ".json"))
seen = set()
for e in doc["benchmarks"]:
    o = e.get("ompbench", {})
    if not isinstance(o.get("marks"), list):
        errors.append("json: %s has no ompbench.marks list" % e["name"]); continue
    compare("json " + e["run_type"], e["run_name"], set(o["marks"]))
    seen.add(e["run_name"])
# CSV: the marks column, codes joined by ';'
rows = list(csv.DictReader(open(base + ".csv")))
for r in rows:
    compare("csv", r["name"], set(c for c in r["marks"].split(";") if c))
    seen.add(r["name"])
# console: the row ends with its letters ('-' for none); the legend
lines = open(base + ".txt").read().splitlines()
head = [l for l in lines if l.startswith("benchmark ")]
if not head or not head[0].rstrip().endswith(" marks"):
    errors.append("console: no marks column in %r" % head)
shown = set()
for name in sorted(seen):
    row = [l for l in lines if l.startswith(name + " ")]
    if len(row) != 1:
        errors.append("console: no row for %s" % name); continue
    cell = row[0].split()[-1]
    got = set() if cell == "-" else {c for c, l in letters.items() if l in cell}
    compare("console", name, got)
    shown |= got
for code, letter in letters.items():
    has = any(l.startswith("%s %s: " % (letter, code)) for l in lines)
    if has != (code in shown):
        errors.append("console: legend line of %s is %s" % (code, "there" if has else "missing"))
for name in want:
    if name not in seen:
        errors.append("no result for %s" % name)
if errors:
    sys.exit("FAIL: %s:\n  %s\n%s" % (base, "\n  ".join(errors), "\n".join(lines)))
PY
}

# Nested region, team width, -O0: --test runs one round, so nothing else is
# marked; at t=1 no width is oversubscribed.
run plain "$fixture" --test --threads 1
check plain "plain[t=1]=;nested[t=1]=nested_region;wide[t=1]=team_width;unopt[t=1]=unoptimized" exact
n=$(grep -c "warning: benchmark code compiled without optimization" "$tmp/plain.err")
# Only the -O0 file is unoptimized: the sanitizer build compiles the rest at
# -O1 (its library still says "build type Debug"), and the check above already
# failed if any other instance were marked.
first='1 instance, the first unopt\[t=1\] in tests/marks_fixture_O0.c'
if [ "$n" != 1 ] || ! grep -q "$first" "$tmp/plain.err"; then
  echo "FAIL: the -O0 warning is not there once, naming unopt[t=1]:"; cat "$tmp/plain.err"; fail=1
fi

# Two threads on one PU.
run over taskset -c 0 "$fixture" --test --threads 2 --filter '^plain\['
check over "plain[t=2]=oversubscribed" exact

# A busy loop on PU 0 beside the team's one thread there: measured rounds,
# the CPU share column, and the share itself below the threshold.
taskset -c 0 sh -c 'while :; do :; done' &
hog=$!
run share taskset -c 0 "$fixture" --threads 1 --pin cpus:0 --filter '^plain\[' \
  --sample-count 10 --warmup-time 10ms --max-time 500ms
kill "$hog"; wait "$hog" 2> /dev/null; hog=""
check share "plain[t=1]=cpu_share"
python3 - "$tmp/share" <<'PY' || fail=1
import csv, json, sys
base = sys.argv[1]
e = [e for e in json.load(open(base + ".json"))["benchmarks"] if e["run_type"] == "iteration"][0]
share = e["ompbench"]["cpu_share"]
row = list(csv.DictReader(open(base + ".csv")))[0]
text = open(base + ".txt").read()
head = [l for l in text.splitlines() if l.startswith("benchmark ")][0]
if not (0 < share < 0.8 and 0 < float(row["cpu_share"]) < 0.8 and "CPU share" in head):
    sys.exit("FAIL: cpu share json %r csv %r, header %r" % (share, row["cpu_share"], head))
PY

# An application region seen once, and one seen three times.
cat > "$tmp/once.c" <<'EOF'
#include <ompbench.h>

int main(void)
{
    ompb_region_begin("once");
    ompb_region_end("once");
    for (int i = 0; i < 3; i++) {
        ompb_region_begin("thrice");
        ompb_region_end("thrice");
    }
    return 0;
}
EOF
flags="-std=c11 -fopenmp ${OMPB_SANITIZE_FLAGS:-} -Wall -Wextra -Werror -I$src/include"
if cc $flags "$tmp/once.c" "$build/libompbench.a" $(pkg-config --libs hwloc jansson) -lm \
     -o "$tmp/once" 2> "$tmp/cc.log"; then
  for ext in txt csv json; do
    fmt=$ext
    [ "$ext" = txt ] && fmt=console
    OMPB_REGIONS_OUTPUT="$tmp/region.$ext" OMPB_REGIONS_FORMAT=$fmt timeout 60 "$tmp/once" \
      2> "$tmp/region.err" || { echo "FAIL: region program ($fmt)"; cat "$tmp/region.err"; fail=1; }
  done
  check region "region:once[t=1]=one_value;region:thrice[t=1]=" exact
else
  echo "FAIL: region program:"; cat "$tmp/cc.log"; fail=1
fi

[ "$fail" = 0 ] && echo "marks: ok"
exit "$fail"
