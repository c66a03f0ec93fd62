#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench compare` and `ompbench scaling` from the command line, on the
# crafted files of tests/data/compare: exit statuses, one-line messages that
# name the bad file, no output file after a failure, SVGs that real XML
# parsers (xmllint, Python's xml.etree) accept, with the expected series, and
# that stay small on hostile input. Usage: analysis_cli.sh BUILD_DIR SOURCE_DIR
fail_fast=1
. "$(dirname "$0")/lib.sh" "$@"
set -e
tool=$build/tools/ompbench
data=$src/tests/data/compare
py=/usr/bin/python3

# run STATUS CMD...: runs CMD with stdout in $tmp/out, stderr in $tmp/err.
run() {
  local want=$1 got
  shift
  set +e
  "$@" >"$tmp/out" 2>"$tmp/err"
  got=$?
  set -e
  if [ "$got" != "$want" ]; then
    cat "$tmp/out" "$tmp/err" >&2
    fail "exit status $got, expected $want: $*"
  fi
}
has() { grep -qF -- "$1" "$2" || { cat "$2" >&2; fail "'$1' not in $2"; }; }
lacks() { ! grep -qF -- "$1" "$2" || fail "'$1' unexpectedly in $2"; }
xml_ok() { # FILE is well-formed XML for both parsers
  xmllint --noout "$1" || fail "xmllint rejects $1"
  "$py" -c 'import sys, xml.etree.ElementTree as ET; ET.parse(sys.argv[1])' "$1" ||
    fail "xml.etree rejects $1"
}
only_files() { # the temporary directory holds exactly these names
  local got
  got=$(cd "$tmp" && ls | tr '\n' ' ')
  [ "$got" = "$* " ] || fail "files in tmp: '$got', expected '$* '"
}

[ -x "$tool" ] || fail "$tool not built"
command -v xmllint >/dev/null || fail "xmllint not installed (Debian libxml2-utils)"

# Every verdict on runs of 4 processes a side; --fail-on-regression turns
# regressions into status 1. The header leads with what could be judged.
run 0 "$tool" compare "$data/runs_base.json" "$data/runs_head.json"
head -1 "$tmp/out" | grep -q "^Judged 6 of 10 instances: 2 regressed, 1 improved, 2 untouched, 1 noisy; not judged: 0 noise unknown, 1 new, 1 missing, 1 failed, 1 no ratio (a time of 0);" ||
  fail "summary line: $(head -1 "$tmp/out")"
has "failed in HEAD: benchmark left its loop early" "$tmp/out"
run 1 "$tool" compare --fail-on-regression "$data/runs_base.json" "$data/runs_head.json"
run 0 "$tool" compare --fail-on-regression "$data/runs_base.json" "$data/runs_base.json"
has "Judged 8 of 9 instances: 0 regressed, 0 improved, 7 untouched, 1 noisy;" "$tmp/out"
has "0 failed, 1 no ratio (a time of 0);" "$tmp/out"
has "ompbench compare: warning: 1 instance not judged for a time of 0 on a side (no ratio); --fail-on-regression does not fail on it" "$tmp/err"
# A time of 0 against a real one (issue 9): not judged, never "untouched",
# and the gate says it let it through.
"$py" - "$tmp/zero_base.json" "$tmp/zero_head.json" <<'PY'
import json, sys
for path, t in zip(sys.argv[1:], (0.0, 505.0)):
    json.dump({"context": {"executable": "x"}, "benchmarks": [
        {"name": "crafted", "run_name": "crafted", "run_type": "iteration", "iterations": 1,
         "real_time": t, "cpu_time": t, "time_unit": "ns"}]}, open(path, "w"))
PY
run 0 "$tool" compare --fail-on-regression "$tmp/zero_base.json" "$tmp/zero_head.json"
has "Judged 0 of 1 instances: 0 regressed, 0 improved, 0 untouched, 0 noisy; not judged: 0 noise unknown, 0 new, 0 missing, 0 failed, 1 no ratio (a time of 0);" "$tmp/out"
has "no ratio       a time of 0 in BASE: no ratio to judge" "$tmp/out"
has "--fail-on-regression does not fail on it" "$tmp/err"
run 0 "$tool" compare --format json "$tmp/zero_base.json" "$tmp/zero_head.json"
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["instances"][0]; assert (r["verdict"], r["basis"], d["summary"]["judged"], d["summary"]["no_ratio"], d["summary"]["untouched"]) == ("no_ratio", "none", 0, 1, 0), r' "$tmp/out"
rm -f "$tmp/zero_base.json" "$tmp/zero_head.json"
# A failure in HEAD without any regression also fails the CI gate.
"$py" - "$data/runs_base.json" "$tmp/failed_head.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
e = next(b for b in d["benchmarks"] if b.get("run_type", "iteration") == "iteration")
e["error_occurred"] = True
e["error_message"] = "benchmark left its loop early"
for k in ("stats", "samples"):
    e.get("ompbench", {}).pop(k, None)
json.dump(d, open(sys.argv[2], "w"))
PY
run 1 "$tool" compare --fail-on-regression "$data/runs_base.json" "$tmp/failed_head.json"
has "0 regressed" "$tmp/out"
has "1 failed" "$tmp/out"
rm -f "$tmp/failed_head.json"

# One run per side claims nothing: noise unknown, never regressed.
run 0 "$tool" compare "$data/base.json" "$data/head.json"
has "Judged 0 of 10 instances: 0 regressed" "$tmp/out"
has "1 vs 1 run: run-to-run noise unknown; needs 2+ per side" "$tmp/out"

# The threshold edge: "exact5" moves by exactly 5%, "above5" by 5.1%.
run 0 "$tool" compare --threshold 4.99 "$data/runs_base.json" "$data/runs_head.json"
has "3 regressed" "$tmp/out"
run 0 "$tool" compare --threshold=5.2% "$data/runs_base.json" "$data/runs_head.json"
has "1 regressed" "$tmp/out"

# Pooling: the two halves of runs_base.json on the BASE side, with --base
# and --head, give what the whole file gives.
run 0 "$tool" compare --format json "$data/runs_base.json" "$data/runs_head.json"
mv "$tmp/out" "$tmp/whole.json"
run 0 "$tool" compare --format json --base "$data/runs_base_a.json" --base "$data/runs_base_b.json" \
  --head "$data/runs_head.json"
"$py" - "$tmp/whole.json" "$tmp/out" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for x, y in zip(a["instances"], sorted(b["instances"], key=lambda r: [i["name"] for i in a["instances"]].index(r["name"]))):
    assert x["name"] == y["name"] and x["verdict"] == y["verdict"], (x, y)
    assert x["base_runs"] == y["base_runs"], (x, y)
assert len(b["base"]) == 2, b["base"]
PY
rm -f "$tmp/whole.json"
# The same file twice on a side, or files of another binary: refused.
run 2 "$tool" compare --base "$data/runs_base.json" --base "$data/runs_base.json" --head "$data/runs_head.json"
has "ompbench compare: $data/runs_base.json: the same results as $data/runs_base.json, given twice for BASE" "$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "more than one line"
run 2 "$tool" compare "$data/runs_head.json" --head "$data/runs_base.json" --head "$data/runs_other_binary.json"
has "ompbench compare: $data/runs_other_binary.json: from a different binary than $data/runs_base.json (build ID" "$tmp/err"

# Formats; the markdown and JSON reports go to files atomically.
run 0 "$tool" compare --format markdown --output "$tmp/cmp.md" "$data/runs_base.json" "$data/runs_head.json"
has "| Benchmark | BASE | HEAD | Change | 95% interval | Runs | Verdict | Note |" "$tmp/cmp.md"
head -3 "$tmp/cmp.md" | grep -q '^\*\*Judged 6 of 10 instances\*\*' || fail "markdown does not lead with the judged count"
[ ! -s "$tmp/out" ] || fail "report also went to stdout"
run 0 "$tool" compare --format json "$data/runs_base.json" "$data/runs_head.json"
"$py" - "$tmp/out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["summary"]
assert (s["judged"], s["regressed"], s["improved"], s["untouched"], s["noisy"], s["new"], s["missing"], s["failed"], s["no_ratio"]) == (6, 2, 1, 2, 1, 1, 1, 1, 1), s
assert "zero_time" not in s, s
assert {r["name"]: r["verdict"] for r in doc["instances"]}["noisy[t=2]"] == "noisy"
PY

# Different runtime environments: in the report and on stderr.
run 0 "$tool" compare "$data/base.json" "$data/base_other_env.json"
has "warning: different runtime environments:" "$tmp/out"
has "ompbench.openmp.vendor: \"GNU libgomp\" vs \"LLVM libomp\"" "$tmp/out"
has "ompbench.environment.OMP_WAIT_POLICY: (unset) vs \"passive\"" "$tmp/out"
has "different runtime environments" "$tmp/err"

# Plain Google Benchmark JSON: a file is one run, so noise unknown, even
# with --benchmark_repetitions (the note shows their in-process spread);
# pooled files per side are runs.
run 0 "$tool" compare "$data/gbench_base.json" "$data/gbench_head.json"
has "Judged 0 of 3 instances" "$tmp/out"
run 0 "$tool" compare "$data/gbench_reps_base.json" "$data/gbench_reps_head.json"
has "Judged 0 of 1 instances" "$tmp/out"
has "1 vs 1 runs: their 8 vs 8 repetitions spread 1.3%/1.7% within a process" "$tmp/out"
run 0 "$tool" compare --base "$data/gbench_reps_base.json" --base "$data/gbench_base.json" \
  --head "$data/gbench_reps_head.json" --head "$data/gbench_head.json"
has "Judged 1 of 3 instances" "$tmp/out"

# --benchmark_report_aggregates_only: the medians (else means) are the runs'
# values, mean and stddev their in-process spread; one file a side is one
# run. A file with no usable entry is refused.
run 0 "$tool" compare --fail-on-regression "$data/gbench_agg_base.json" "$data/gbench_agg_head.json"
has "not judged: 2 noise unknown" "$tmp/out"
has "5 vs 5 repetitions (from aggregates) spread 5.0%/4.0%" "$tmp/out"
run 2 "$tool" compare --fail-on-regression "$data/gbench_agg_unusable.json" "$data/gbench_agg_head.json"
has "ompbench compare: $data/gbench_agg_unusable.json: no benchmark results" "$tmp/err"

# Aggregates only, but without the spread: one line, status 2.
"$py" - "$data/gbench_agg_base.json" "$tmp/nostd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"] = [b for b in d["benchmarks"] if b.get("aggregate_name") != "stddev"]
json.dump(d, open(sys.argv[2], "w"))
PY
run 2 "$tool" compare "$tmp/nostd.json" "$data/gbench_agg_head.json"
has "ompbench compare: $tmp/nostd.json: \"BM_sort/1024\" is reported by aggregates only but has no \"_stddev\" aggregate" "$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "more than one line"
rm -f "$tmp/nostd.json"

# Repetitions that do not add up: one line, status 2.
"$py" - "$data/runs_base.json" "$tmp/short.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["benchmarks"] = [b for b in d["benchmarks"] if b.get("repetition_index") != 3]
json.dump(d, open(sys.argv[2], "w"))
PY
run 2 "$tool" compare "$tmp/short.json" "$data/runs_head.json"
has "ompbench compare: $tmp/short.json: \"regressed[t=2]\" holds 7 of its 8 repetitions" "$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "more than one line"
rm -f "$tmp/short.json"

# Bad files: status 2, one line naming the file, nothing written.
only_files cmp.md err out
for f in truncated.json not_json.txt wrong_schema.json no_samples.json missing.json \
         gbench_agg_unusable.json; do
  run 2 "$tool" compare --output "$tmp/never.md" "$data/base.json" "$data/$f"
  has "ompbench compare: $data/$f: " "$tmp/err"
  [ "$(wc -l <"$tmp/err")" = 1 ] || fail "more than one line for $f"
  [ ! -s "$tmp/out" ] || fail "output for $f"
  only_files cmp.md err out
done
run 2 "$tool" compare "$data/truncated.json" "$data/base.json"
has "truncated.json: not valid JSON (truncated?)" "$tmp/err"

# Bad options: status 2, the value and what is accepted.
run 2 "$tool" compare --threshold abc "$data/base.json" "$data/head.json"
has "--threshold: invalid value 'abc' (accepted: a percentage" "$tmp/err"
run 2 "$tool" compare --alpha 1.5 "$data/base.json" "$data/head.json"
has "--alpha: invalid value '1.5'" "$tmp/err"
run 2 "$tool" compare --format html "$data/base.json" "$data/head.json"
has "--format: invalid value 'html' (accepted: console, markdown, json)" "$tmp/err"
run 2 "$tool" compare --bogus "$data/base.json" "$data/head.json"
has "'--bogus'" "$tmp/err"
run 2 "$tool" compare "$data/base.json"
has "expected BASE and HEAD result files, got 1 and 0" "$tmp/err"
run 2 "$tool" compare "$data/base.json" "$data/head.json" "$data/head.json"
has "unexpected argument" "$tmp/err"
run 2 "$tool" compare --output "$tmp/no/such/dir/x.md" "$data/base.json" "$data/head.json"
run 0 "$tool" compare --help
has "usage: ompbench compare" "$tmp/out"
only_files cmp.md err out

# Scaling: table and a standalone SVG with both series of every family.
run 0 "$tool" scaling --svg "$tmp/s.svg" "$data/scaling.json"
has "triad[1048576] (against 1 thread)" "$tmp/out"
has "       4      300.0 ns     3.33x       83.3%" "$tmp/out"
xml_ok "$tmp/s.svg"
"$py" - "$tmp/s.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg", root.tag
ids = {e.get("id") for e in root.iter(ns + "polyline")}
for f, n in (("f0", 3), ("f1", 2)):
    for s in ("time-measured", "time-ideal", "efficiency-measured", "efficiency-ideal"):
        e = next(e for e in root.iter(ns + "polyline") if e.get("id") == f"{f}-{s}")
        assert len(e.get("points").split()) == n, (f, s)
assert not any(i.startswith("f2") for i in ids), ids
names = [g.get("data-name") for g in root.iter(ns + "g") if g.get("class") == "family"]
assert names == ["triad[1048576]", "stream"], names
PY
run 0 "$tool" scaling --format markdown --output "$tmp/s.md" "$data/scaling.json"
has "| 2 | 520.0 ns | 1.92x | 96.2% | 1.020 |" "$tmp/s.md"
rm -f "$tmp/s.md" "$tmp/s.svg"

# Hostile input: control characters and markup in a name, efficiency 5e299,
# 1 ms against 1 ns, a time of 0. It finishes, the SVG is small and parses,
# and no escape character reaches the terminal.
run 0 timeout 60 "$tool" scaling --svg "$tmp/h.svg" "$data/scaling_hostile.json"
[ "$(wc -c <"$tmp/h.svg")" -lt 60000 ] || fail "SVG of 4 families is $(wc -c <"$tmp/h.svg") bytes"
xml_ok "$tmp/h.svg"
"$py" - "$tmp/h.svg" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
names = [g.get("data-name") for g in root.iter(ns + "g") if g.get("class") == "family"]
assert names == ['ctl<&"]]>??[31m\x7f`?\ttab', "huge", "ms_vs_ns", "zero"], names
off = [p for p in root.iter(ns + "polygon") if p.get("class") == "off-axis"]
assert len(off) == 7, len(off)
for panel in (g for g in root.iter(ns + "g") if (g.get("class") or "").startswith("panel")):
    ticks = [l for l in panel.iter(ns + "line") if l.get("stroke") == "#e5e5e5"]
    assert 2 <= len(ticks) <= 9, len(ticks)
PY
! grep -q $'\x1b' "$tmp/out" || fail "raw escape character on the terminal"
has 'ctl<&"]]>\x01\x1B[31m' "$tmp/out"
rm -f "$tmp/h.svg"

# A failure to commit the SVG (here a rename that fails, injected with
# LD_PRELOAD) must not leave the table, committed just before, behind.
if cc -shared -fPIC -o "$tmp/failrename.so" -x c - -ldl 2>"$tmp/cc.err" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
int rename(const char *from, const char *to)
{
    size_t n = strlen(to);
    if (n >= 8 && strcmp(to + n - 8, "fail.svg") == 0) {
        errno = EIO;
        return -1;
    }
    int (*real)(const char *, const char *);
    *(void **)&real = dlsym(RTLD_NEXT, "rename");
    return real(from, to);
}
C
then
  run 2 env LD_PRELOAD="$tmp/failrename.so" ASAN_OPTIONS=verify_asan_link_order=0 \
    "$tool" scaling --output "$tmp/t.txt" --svg "$tmp/fail.svg" "$data/scaling.json"
  has "fail.svg" "$tmp/err"
  rm -f "$tmp/failrename.so" "$tmp/cc.err"
  only_files cmp.md err out
else
  echo "note: no C compiler for the rename shim; commit-failure check skipped" >&2
  rm -f "$tmp/cc.err"
fi
run 2 "$tool" scaling --svg "$tmp/never.svg" "$data/truncated.json"
has "ompbench scaling: $data/truncated.json: not valid JSON" "$tmp/err"
only_files cmp.md err out
# Several files (one MPI job per rank count) merge into one family over
# ranks x threads, R and T in columns of their own; a bad file among them
# fails the run, naming it, with no output file.
gb() { # NAME THREADS NS...: a Google Benchmark file of those entries
  local sep=
  printf '{"benchmarks": ['
  while [ $# -gt 0 ]; do
    printf '%s{"name": "%s", "run_type": "iteration", "time_unit": "ns", "threads": %s, "real_time": %s}' \
      "$sep" "$1" "$2" "$3"
    sep=', '
    shift 3
  done
  printf ']}\n'
}
gb 'halo[r=1, t=1]' 1 1000 'halo[r=1, t=2]' 2 600 > "$tmp/r1.json"
gb 'halo[r=2, t=1]' 1 500 'halo[r=2, t=2]' 2 250 > "$tmp/r2.json"
run 0 "$tool" scaling "$tmp/r1.json" "$tmp/r2.json"
has "halo (against 1 rank x 1 thread)" "$tmp/out"
has " ranks   threads        median   speedup  efficiency" "$tmp/out"
has "     2         2      250.0 ns     4.00x      100.0%" "$tmp/out"
run 2 "$tool" scaling --output "$tmp/never.txt" "$tmp/r1.json" "$data/truncated.json"
has "ompbench scaling: $data/truncated.json: not valid JSON" "$tmp/err"
rm -f "$tmp/r1.json" "$tmp/r2.json"
only_files cmp.md err out
run 2 "$tool" scaling --format svg "$data/scaling.json"
has "--format: invalid value 'svg'" "$tmp/err"
run 2 "$tool" scaling
has "expected a result file" "$tmp/err"
echo "analysis_cli: ok"
