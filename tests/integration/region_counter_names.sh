#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Region counters with ten names over two threads (issue 30, item 4, defect
# 4; region_app ten-names): a region holds at most 8 counter names over all
# its threads, as a benchmark's team does; the two calls past the limit
# return OMPB_EINVAL and the first prints one line naming the region, the
# counter and the limit; the report has the 8 names that were taken, each
# with its exact total.
# Usage: region_counter_names.sh BUILD_DIR SOURCE_DIR
script_bound=120
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/region_app
[ -x "$app" ] || { echo "region_counter_names: no $app; skipped"; exit 77; }
OMPB_REGIONS_OUTPUT=$tmp/r.json timeout $((60 * mult)) "$app" ten-names > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "exit status $rc, want 0"
grep -qx 'refused=2' "$tmp/out" || fail "want refused=2, got: $(cat "$tmp/out")"
[ "$(grep -c 'more than 8 counter names' "$tmp/err")" -eq 1 ] ||
  fail "want one line naming the limit: $(cat "$tmp/err")"
grep 'more than 8' "$tmp/err" | grep -q 'names' ||
  fail "the line does not name the region: $(cat "$tmp/err")"
python3 - "$tmp/r.json" <<'PY' || fail "the report does not hold the 8 names taken"
import json, sys
d = json.load(open(sys.argv[1]))
e = [b for b in d["benchmarks"] if b["name"] == "region:names[t=2]" and b["run_type"] == "iteration"]
assert len(e) == 1, [b["name"] for b in d["benchmarks"]]
uc = e[0]["ompbench"]["user_counters"]
assert len(uc) == 8, sorted(uc)
for k in uc:
    assert e[0][k] == 1, (k, e[0][k])
PY
[ "$fails" -eq 0 ] && echo "region_counter_names: ok"
exit $((fails > 0))
