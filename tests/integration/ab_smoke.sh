#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The mechanics of benches/ab.sh in a few seconds: the A/B fixture runs at
# factor 1 and 3 in two processes each, with a tiny budget, and compare
# judges every instance on 2 against 2 processes. No verdict is asserted
# (a CI machine's noise decides those at this budget); the figures are
# benches/ab.sh's, in docs/performance.md. Also: a bad factor is refused.
# Usage: ab_smoke.sh BUILD_DIR SOURCE_DIR
fail_fast=1
. "$(dirname "$0")/lib.sh" "$@"
set -e
bin=$build/tests/ab_fixture
tool=$build/tools/ompbench
[ -x "$bin" ] || { echo "no $bin in this build"; exit 77; }
args=(--processes 2 --sample-count 4 --warmup-time 0 --min-time 200us --max-time 40ms
      --format json)
OMPB_AB_FACTOR=1 timeout 120 "$bin" "${args[@]}" --output "$tmp/base.json"
OMPB_AB_FACTOR=3 timeout 120 "$bin" "${args[@]}" --output "$tmp/head.json"
timeout 60 "$tool" compare --format json "$tmp/base.json" "$tmp/head.json" > "$tmp/cmp.json"
/usr/bin/python3 - "$tmp/base.json" "$tmp/head.json" "$tmp/cmp.json" <<'PY'
import json, sys
base, head, cmp = (json.load(open(f)) for f in sys.argv[1:])
names = {b["name"] for b in base["benchmarks"] if b["run_type"] == "iteration"}
assert names == {"slowed", "steady_chain[200]", "steady_chain[2000]", "steady_chain[20000]",
                 "steady_sum"}, names
rows = {r["name"]: r for r in cmp["instances"]}
assert set(rows) == names, rows.keys()
# Each side's rounds were accounted: judged on the clean rounds of its runs,
# or disturbed (too few clean rounds on a busy machine), never on all rounds.
for r in rows.values():
    assert r["rounds"] == "clean" and r["base_runs"] == 2 and r["head_runs"] == 2, r
    if r["verdict"] == "disturbed":
        assert r["basis"] == "none" and r["clean"]["base_runs"] + r["clean"]["head_runs"] < 4, r
    else:
        assert r["basis"] == "processes", r
        assert r["verdict"] in ("regressed", "improved", "untouched", "noisy"), r
assert cmp["summary"]["judged"] + sum(r["verdict"] == "disturbed" for r in rows.values()) == 5, \
    cmp["summary"]
PY
set +e
err=$(OMPB_AB_FACTOR=fast "$bin" --test 2>&1)
status=$?
set -e
[ "$status" = 2 ] || fail "bad factor: exit status $status"
grep -q "OMPB_AB_FACTOR: invalid value 'fast' (accepted: a number in (0, 100]" <<< "$err" ||
  fail "bad factor: $err"
echo "ab_smoke: ok"
