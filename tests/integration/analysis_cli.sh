#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench compare` and `ompbench scaling` from the command line, on the
# crafted files of tests/data/compare: exit statuses, one-line messages that
# name the bad file, no output file after a failure, a valid SVG with the
# expected series. Usage: analysis_cli.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tool=$build/tools/ompbench
data=$src/tests/data/compare
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

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
only_files() { # the temporary directory holds exactly these names
  local got
  got=$(cd "$tmp" && ls | tr '\n' ' ')
  [ "$got" = "$* " ] || fail "files in tmp: '$got', expected '$* '"
}

[ -x "$tool" ] || fail "$tool not built"

# Every verdict; --fail-on-regression turns regressions into status 1.
run 0 "$tool" compare "$data/base.json" "$data/head.json"
has "2 regressed, 1 improved, 3 untouched, 1 new, 2 missing, 1 with too few samples" "$tmp/out"
run 1 "$tool" compare --fail-on-regression "$data/base.json" "$data/head.json"
run 0 "$tool" compare --fail-on-regression "$data/base.json" "$data/base.json"
has "0 regressed, 0 improved, 9 untouched, 0 new, 0 missing; geometric mean change +0.00%" "$tmp/out"

# The threshold edge: "edge" moves by exactly 5%, "edge_above" by 5.1%.
run 0 "$tool" compare --threshold 4.99 "$data/base.json" "$data/head.json"
has "3 regressed" "$tmp/out"
run 0 "$tool" compare --threshold=5.2% "$data/base.json" "$data/head.json"
has "1 regressed" "$tmp/out"
run 0 "$tool" compare --alpha 0.5 "$data/base.json" "$data/head.json"
has "4 regressed" "$tmp/out" # wide (p = 0.315) and few now count too

# Formats; the markdown and JSON reports go to files atomically.
run 0 "$tool" compare --format markdown --output "$tmp/cmp.md" "$data/base.json" "$data/head.json"
has "| Benchmark | BASE | HEAD | Change | Verdict | Note |" "$tmp/cmp.md"
[ ! -s "$tmp/out" ] || fail "report also went to stdout"
run 0 "$tool" compare --format json "$data/base.json" "$data/head.json"
"$py" - "$tmp/out" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["summary"]
assert (s["regressed"], s["improved"], s["untouched"], s["new"], s["missing"]) == (2, 1, 3, 1, 2), s
assert {r["name"]: r["verdict"] for r in doc["instances"]}["few[t=2]"] == "too_few_samples"
PY

# Different runtime environments: in the report and on stderr.
run 0 "$tool" compare "$data/base.json" "$data/base_other_env.json"
has "warning: different runtime environments:" "$tmp/out"
has "ompbench.openmp.vendor: \"GNU libgomp\" vs \"LLVM libomp\"" "$tmp/out"
has "ompbench.environment.OMP_WAIT_POLICY: (unset) vs \"passive\"" "$tmp/out"
has "different runtime environments" "$tmp/err"

# Plain Google Benchmark JSON: threshold only, and said so.
run 0 "$tool" compare "$data/gbench_base.json" "$data/gbench_head.json"
has "3 instance(s) have no raw samples (plain Google Benchmark JSON): threshold only." "$tmp/out"
has "1 regressed, 1 improved, 1 untouched" "$tmp/out"

# Bad files: status 2, one line naming the file, nothing written.
only_files cmp.md err out
for f in truncated.json not_json.txt wrong_schema.json no_samples.json missing.json; do
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
has "expected two result files, got 1" "$tmp/err"
run 2 "$tool" compare --output "$tmp/no/such/dir/x.md" "$data/base.json" "$data/head.json"
run 0 "$tool" compare --help
has "usage: ompbench compare" "$tmp/out"
only_files cmp.md err out

# Scaling: table and a standalone SVG with both series of every family.
run 0 "$tool" scaling --svg "$tmp/s.svg" "$data/scaling.json"
has "triad[1048576] (against 1 thread)" "$tmp/out"
has "       4      300.0 ns     3.33x       83.3%" "$tmp/out"
if command -v xmllint >/dev/null; then
  xmllint --noout "$tmp/s.svg" || fail "xmllint rejects the SVG"
else
  echo "note: xmllint not installed (Debian libxml2-utils); using Python's parser only" >&2
fi
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
run 2 "$tool" scaling --svg "$tmp/never.svg" "$data/truncated.json"
has "ompbench scaling: $data/truncated.json: not valid JSON" "$tmp/err"
only_files cmp.md err out
run 2 "$tool" scaling --format svg "$data/scaling.json"
has "--format: invalid value 'svg'" "$tmp/err"
run 2 "$tool" scaling
has "expected a result file" "$tmp/err"
echo "analysis_cli: ok"
