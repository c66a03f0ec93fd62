#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A signal a region program raises itself is never swallowed (issue 30,
# item 4, defect 6; region_app term-inside / term-at-return): SIGTERM
# raised inside an instance, or right before main returns, ends the
# process as it would without ompbench (status 143, 20 runs each), and the
# report of what was done is written and says it is partial
# (interrupted_by SIGTERM).
# Usage: region_raise.sh BUILD_DIR SOURCE_DIR
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/region_app
[ -x "$app" ] || { echo "region_raise: no $app; skipped"; exit 77; }
for mode in term-inside term-at-return; do
  bad=0
  for i in $(seq 20); do
    rm -f "$tmp/r.json"
    OMPB_REGIONS_OUTPUT=$tmp/r.json timeout -s KILL $((60 * mult)) "$app" $mode > /dev/null 2> "$tmp/err"
    rc=$?
    if [ "$rc" -ne 143 ]; then
      bad=$((bad + 1))
      echo "$mode run $i: exit status $rc, want 143" >&2
      continue
    fi
    python3 - "$tmp/r.json" <<'PY' || { bad=$((bad + 1)); echo "$mode run $i: report not partial" >&2; }
import json, sys
d = json.load(open(sys.argv[1]))
ctx = d["context"]
assert ctx.get("partial") is True and ctx.get("interrupted_by") == "SIGTERM", ctx.get("interrupted_by")
PY
  done
  [ "$bad" -eq 0 ] || fail "$mode: $bad of 20 runs did not end as SIGTERM does"
done
[ "$fails" -eq 0 ] && echo "region_raise: ok"
exit $((fails > 0))
