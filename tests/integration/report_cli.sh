#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench report` from the command line, without a browser: bad input
# (a missing, non-JSON or wrong-schema file, no --output, --output naming
# an input, --compare without --vs, an unknown option) exits 2 with one
# line naming the value and leaves no page; names from the file are
# escaped (a '<script>' in a name stays text); the page names no URL; a
# declared weak scaling reaches the chart. Usage: report_cli.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
tool=$build/tools/ompbench
data=$src/tests/data/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
t=$((30 * ${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}))

refused() { # WHAT EXPECTED_TEXT ARGS...: exit 2, the text on stderr, no page
  local what=$1 want=$2; shift 2
  rm -f "$tmp/out.html"
  timeout "$t" "$tool" report "$@" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  if [ "$rc" -ne 2 ]; then echo "FAIL: $what: exit $rc, want 2"; fail=1; fi
  if ! grep -qF -- "$want" "$tmp/stderr"; then
    echo "FAIL: $what: stderr lacks '$want':"; cat "$tmp/stderr"; fail=1
  fi
  if [ "$(wc -l < "$tmp/stderr")" -ne 1 ]; then echo "FAIL: $what: not one line"; fail=1; fi
  if [ -e "$tmp/out.html" ]; then echo "FAIL: $what: a page was left behind"; fail=1; fi
}

refused "missing file" "$tmp/none.json" "$tmp/none.json" --output "$tmp/out.html"
refused "not JSON" "not_json.txt" "$data/not_json.txt" --output "$tmp/out.html"
refused "wrong schema" "wrong_schema.json" "$data/wrong_schema.json" --output "$tmp/out.html"
refused "no --output" "--output FILE is required" "$data/base.json"
refused "output is input" "--output" "$data/base.json" --output "$data/base.json"
refused "--compare without --vs" "--compare needs --vs" --compare "$data/base.json" \
  --output "$tmp/out.html"
refused "unknown option" "'--bogus'" "$data/base.json" --bogus --output "$tmp/out.html"

# A hostile name and a declared weak scaling, in an ompbench result file.
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
def entry(name, ranks, ns, scaling="weak"):
    return {"name": name, "run_type": "iteration", "threads": 1, "real_time": ns,
            "time_unit": "ns", "iterations": 3,
            "ompbench": {"threads": 1, "ranks": ranks, "threads_per_rank": 1,
                         "sample_size": 1, "rounds": 3, "marks": [], "scaling": scaling,
                         "samples": {"makespan_ns": [ns, ns + 1, ns + 2],
                                     "start_skew_ns": [1, 2, 3],
                                     "busy_ns": [[ns], [ns], [ns]],
                                     "start_offset_ns": [[0], [0], [0]]}}}
for r in (1, 2):
    json.dump({"context": {"host_name": "h</td><script>alert(1)</script>"},
               "benchmarks": [entry("x<script>alert(1)</script>[r=%d, t=1]" % r, r, 1000)]},
              open("%s/weak%d.json" % (tmp, r), "w"))
bad = entry("y[t=1]", 1, 10, "sideways")
json.dump({"benchmarks": [bad]}, open(tmp + "/sideways.json", "w"))
PY
refused "bad scaling kind" "\"ompbench.scaling\" is not" "$tmp/sideways.json" --output "$tmp/out.html"

if ! timeout "$t" "$tool" report "$tmp/weak1.json" "$tmp/weak2.json" --output "$tmp/weak.html" \
     2> "$tmp/stderr"; then
  echo "FAIL: report of two weak-scaling files:"; cat "$tmp/stderr"; fail=1
fi
if grep -q '<script>alert' "$tmp/weak.html"; then
  echo "FAIL: a name's <script> reached the page unescaped"; fail=1
fi
if [ "$(grep -o '&lt;script&gt;alert' "$tmp/weak.html" | wc -l)" -lt 2 ]; then
  echo "FAIL: the escaped names are missing"; fail=1
fi
if grep -Eiq 'https?:' "$tmp/weak.html"; then echo "FAIL: the page names a URL"; fail=1; fi
if ! grep -q 'data-scaling="weak"' "$tmp/weak.html" \
   || ! grep -q 'weak scaling (declared)' "$tmp/weak.html" \
   || ! grep -q 'efficiency 100.0%' "$tmp/weak.html"; then
  echo "FAIL: the declared weak scaling (100% efficiency) is not on the chart"; fail=1
fi
# The same through `ompbench scaling --svg`, a standalone SVG document.
if ! timeout "$t" "$tool" scaling "$tmp/weak1.json" "$tmp/weak2.json" --svg "$tmp/weak.svg" \
     > "$tmp/table" || ! grep -q 'xmlns="http://www.w3.org/2000/svg"' "$tmp/weak.svg" \
     || ! grep -q 'efficiency 100.0%' "$tmp/weak.svg" || ! grep -q '^weak scaling' "$tmp/table"; then
  echo "FAIL: ompbench scaling --svg of the weak run"; cat "$tmp/table"; fail=1
fi
exit $fail
