#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench trace`'s options and names (docs/trace.md): --help; bad options
# (one line, status 2); --format and --output (by extension too); the
# console header's overhead line; --filter; --min-duration (instances only
# counted, listed in context.trace); region names down the fallbacks:
# symbol (no line tables), address@build-id (OMPB_TRACE_NAMING=address).
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/../trace/trace_test.sh"
prog="$progs/trace_faults"
trace() { timeout 60 "$tool" trace "$@"; }

trace --help > "$tmp/help" || fail "--help: status $?"
for o in --format --output --filter --min-duration --kill-after; do
  grep -q -- "$o" "$tmp/help" || fail "--help does not name $o"
done
# bad_option WORDS ARGS...: status 2, one line naming WORDS.
bad_option() {
  local words=$1
  shift
  trace "$@" > /dev/null 2> "$tmp/bad.err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$*: status $rc, want 2"
  [ "$(wc -l < "$tmp/bad.err")" -eq 1 ] && grep -q -- "$words" "$tmp/bad.err" \
    || fail "$*: want one line naming '$words', got: $(cat "$tmp/bad.err")"
}
bad_option "invalid value 'html'" --format html -- "$prog"
bad_option "--filter" --filter '(' -- "$prog"
bad_option "invalid value '5'" --min-duration 5 -- "$prog"
bad_option "--kill-after: invalid value .soon." --kill-after soon -- "$prog"
bad_option "expected a program" --format json
bad_option "unknown option" --frobnicate -- "$prog"
bad_option "given twice" --format json --format csv -- "$prog"

# Formats: console (with the overhead line) on stdout, csv by extension.
trace -- "$prog" exit 3 > "$tmp/console" 2> /dev/null
grep -q "^trace: *overhead .* per instance per thread" "$tmp/console" || fail "console: no overhead line"
grep -q "region:region._omp_fn.0\[t=2\]" "$tmp/console" || fail "console: no region (symbol name)"
trace --output "$tmp/r.csv" -- "$prog" exit 3 > /dev/null 2>&1
grep -q "region:region._omp_fn.0\[t=2\]" "$tmp/r.csv" && ! grep -q "^trace:" "$tmp/r.csv" \
  || fail "csv by extension: $(head -3 "$tmp/r.csv")"

# --filter: nothing matches, nothing traced; the program's status stays.
trace --filter '^nothing$' -- "$prog" exit 3 > /dev/null 2> "$tmp/filter.err"
rc=$?
[ $rc -eq 3 ] || fail "--filter: status $rc, want the program's 3"
grep -q "ran no traced parallel region" "$tmp/filter.err" || fail "--filter: $(cat "$tmp/filter.err")"

# --min-duration: the first instance is only timed, the next ones traced
# when the one before took at least D. Longer than any instance: all 5
# counted, none reported (no report at all); 0: all traced.
trace --min-duration 60s --output "$tmp/min.json" -- "$prog" exit 5 > /dev/null 2> "$tmp/min.err"
grep -q "counted only (below --min-duration): region._omp_fn.0: 5 instances" "$tmp/min.err" \
  || fail "--min-duration: no counted line: $(cat "$tmp/min.err")"
[ ! -e "$tmp/min.json" ] || fail "--min-duration: a report without a traced instance"
# With line tables and a long region (imbalance.c, 5 instances of about
# 4 units): 1ns traces every instance but the first, which is counted.
OMPB_TRACE_NAMING=line trace --min-duration 1ns --output "$tmp/min1.json" -- "$build/tests/trace/trace_imbalance" 200000 5 \
  > /dev/null 2> "$tmp/min1.err"
python3 - "$tmp/min1.json" <<'PY' || fail "--min-duration 1ns: $(cat "$tmp/min1.err")"
import json, sys
d = json.load(open(sys.argv[1]))
got = [(b["name"], b["ompbench"]["region"]["instances"]) for b in d["benchmarks"]
       if b["run_type"] == "iteration" and "imbalance.c" in b["name"]]
assert len(got) == 1 and got[0][1] == 4, got
c = d["context"]["trace"]["counted_only"]
assert [x["instances"] for x in c] == [1] and c[0]["name"].startswith("imbalance.c:"), c
assert d["context"]["trace"]["overhead_ns_per_thread"] > 0
PY

# A source file whose name is not UTF-8: its counted entry is kept, the bad
# byte shown as \xNN as in the report's own name, not dropped.
bad_name="$tmp/p$(printf '\xff').c"
printf '#include <omp.h>\nint main(void) { int s = 0;\nfor (int i = 0; i < 3; i++) {\n#pragma omp parallel reduction(+:s)\ns += omp_get_thread_num();\n}\nreturn s < 0; }\n' > "$bad_name"
if timeout 120 ${CC:-cc} -fopenmp -g -o "$tmp/badname" "$bad_name"; then
  OMPB_TRACE_NAMING=line trace --min-duration 1ns --output "$tmp/badname.json" -- "$tmp/badname" \
    > /dev/null 2> "$tmp/badname.err"
  python3 - "$tmp/badname.json" <<'PY' || fail "a non-UTF-8 file name: $(cat "$tmp/badname.err")"
import json, sys
c = json.load(open(sys.argv[1]))["context"]["trace"]["counted_only"]
assert [(x["name"], x["instances"]) for x in c] == [("p\\xff.c:4", 1)], c
assert c[0]["file"].endswith("/p\\xff.c"), c
PY
else
  fail "could not compile $bad_name"
fi

# The last fallback: the address in its object and the object's build-id.
OMPB_TRACE_NAMING=address trace --output "$tmp/addr.json" -- "$prog" exit 2 > /dev/null 2>&1
python3 - "$tmp/addr.json" <<'PY' || fail "address names"
import json, re, sys
names = [b["ompbench"]["region"]["name"] for b in json.load(open(sys.argv[1]))["benchmarks"]
         if b["run_type"] == "iteration"]
assert len(names) == 1 and re.fullmatch(r"0x[0-9a-f]+@[0-9a-f]{16}", names[0]), names
PY
exit $((fails > 0))
