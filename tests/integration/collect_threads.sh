#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# thread_example (4 workers, whatever the core count) under `ompbench
# collect`, several times in a row and with a thread list: one aggregate
# marker pair per measured round, strictly alternating, all checks passing;
# and what the collector prints names the instance and its rounds. Fixed
# sample sizes keep oversubscribed runs short on a loaded 2-core machine.
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

for i in 1 2 3; do
  "$tool" collect --json "$tmp/c$i.json" -- "$bin" --filter '^thread_example' \
    --sample-count 6 --sample-size 2 --warmup-time 1ms --max-time 30s > "$tmp/out$i" 2>&1 \
    || { echo "FAIL: run $i:"; cat "$tmp/out$i"; fail=1; continue; }
  python3 - "$tmp/c$i.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
ws = c["windows"]
if len(ws) != 1 or ws[0]["uri"] != "benches/examples.c::thread_example[t=4]":
    sys.exit("FAIL: windows %r" % [w["uri"] for w in ws])
if ws[0]["rounds"] != 6 or len(ws[0]["pairs"]) != 6:
    sys.exit("FAIL: %d marker pairs for 6 measured rounds" % ws[0]["rounds"])
if c["commands"].get("AddMarker") != 12:
    sys.exit("FAIL: %r AddMarker frames for 6 rounds" % c["commands"].get("AddMarker"))
PY
done
grep -qE '^ +6 .*benches/examples\.c::thread_example\[t=4\]$' "$tmp/out1" \
  && grep -q 'all checks passed' "$tmp/out1" \
  || { echo "FAIL: summary does not show the instance with 6 rounds:"; cat "$tmp/out1"; fail=1; }

# Thread variants get distinct URIs, each its own window.
"$tool" collect --json "$tmp/v.json" -- "$bin" --filter '^count_set_bits\[42,' --threads 1,2,4 \
  --sample-count 3 --sample-size 1000 --warmup-time 1ms --max-time 30s > "$tmp/outv" 2>&1 \
  || { echo "FAIL: thread list:"; cat "$tmp/outv"; fail=1; }
python3 - "$tmp/v.json" <<'PY' || fail=1
import json, sys
uris = sorted(w["uri"] for w in json.load(open(sys.argv[1]))["windows"])
want = sorted("benches/examples.c::count_set_bits[42, t=%d]" % t for t in (1, 2, 4))
if uris != want:
    sys.exit("FAIL: URIs %r, want %r" % (uris, want))
PY
exit $fail
