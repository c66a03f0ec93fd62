#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Verdicts on a busy machine (issue 29's bars, docs/performance.md): for
# each count of CPU hogs (`sh -c 'while :; do :; done'`, started here and
# stopped by PID), TRIALS A/B trials of `ompbench ab` on the A/B fixture
# (tests/ab_fixture.c: HEAD's `slowed` does FACTOR times the work, its four
# neighbours the same) and TRIALS A/A trials (HEAD = BASE). Per trial it
# counts what was flagged, untouched, noisy or disturbed, the runs a side
# and the seconds; at the end one line per hog count:
#   hogs N: A/B caught X/T, neighbours flagged F; A/A flagged G, untouched U/M, ...
# With SUITE=examples it runs instead TRIALS A/A trials of the example
# suite (build/benches/examples, 55 instances) and counts the same.
# Every run is bounded by timeout(1); nothing asserts an absolute time.
#
#   benches/busy_verdicts.sh [BUILD_DIR [TRIALS [HOGS [FACTOR [OUT_DIR]]]]]
#
# Defaults: build, 10 trials, hog counts "0 1 2", factor 1.2, a temporary
# directory (kept when OUT_DIR is given: every trial's ab JSON and stderr).
# AB_ARGS adds options to every `ompbench ab` call (e.g. --max-time 2m).
set -euo pipefail
build=${1:-build}
trials=${2:-10}
hog_counts=${3:-"0 1 2"}
factor=${4:-1.2}
out=${5:-}
suite=${SUITE:-fixture}
tool=$build/tools/ompbench
if [ "$suite" = examples ]; then bin=$build/benches/examples; else bin=$build/tests/ab_fixture; fi
[ -x "$tool" ] && [ -x "$bin" ] || { echo "busy_verdicts: build $tool and $bin first" >&2; exit 2; }
if [ -n "$out" ]; then mkdir -p "$out"; dir=$out; else dir=$(mktemp -d); fi
hogs=()
cleanup() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$out" ] || rm -rf "$dir"
}
trap cleanup EXIT INT TERM

start_hogs() {
  hogs=()
  for ((h = 0; h < $1; h++)); do
    timeout 3h sh -c 'while :; do :; done' &
    hogs+=($!)
  done
}
stop_hogs() {
  for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  hogs=()
}

cat > "$dir/head.sh" <<EOF
#!/bin/sh
OMPB_AB_FACTOR=$factor exec "$bin" "\$@"
EOF
chmod +x "$dir/head.sh"

# One trial: ab BASE HEAD (HEAD through the factor's wrapper for A/B).
trial() { # trial KIND N HOGS
  local kind=$1 n=$2 h=$3
  local f="$dir/$kind-h$h-$n"
  local head=(--head-cmd "$dir/head.sh")
  [ "$kind" = ab ] || head=("$bin")
  set +e
  timeout 30m "$tool" ab --seed "$n" --format json --output "$f.json" ${AB_ARGS:-} \
    "$bin" "${head[@]}" 2> "$f.err"
  local status=$?
  set -e
  [ -s "$f.json" ] || { echo "trial $kind h$h #$n: no report (status $status)" >&2; return; }
  /usr/bin/python3 - "$f.json" "$kind" "$h" "$n" "$(cut -d' ' -f1 /proc/loadavg)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); kind, h, n, load = sys.argv[2:]
rows = d["instances"]
v = {}
for r in rows:
    v[r["verdict"]] = v.get(r["verdict"], 0) + 1
slowed = [r for r in rows if r["name"].startswith("slowed")]
flagged = [r["name"] for r in rows if r["verdict"] in ("regressed", "improved")
           and not (kind == "ab" and r["name"].startswith("slowed"))]
caught = kind == "ab" and slowed and slowed[0]["verdict"] == "regressed"
runs = {"base": d["base"]["runs"], "head": d["head"]["runs"]}
# How the pairs after the first were made: by instance, by run, or by
# instance until pair K (--pair-by auto turned to runs).
k = d.get("pairs_by_run_from")
pairing = "instance" if k is None else "run" if k == 2 else "instance-until-%d" % (k - 1)
print("TRIAL %s hogs=%s n=%s load=%s caught=%d other_flagged=%d untouched=%d noisy=%d "
      "disturbed=%d unknown=%d instances=%d runs=%s/%s seconds=%.0f pairing=%s flagged=%s" % (
      kind, h, n, load, caught, len(flagged), v.get("untouched", 0), v.get("noisy", 0),
      v.get("disturbed", 0), v.get("noise_unknown", 0), len(rows),
      runs.get("base", "?"), runs.get("head", "?"), d.get("seconds", 0), pairing,
      ",".join(flagged)))
PY
}

for h in $hog_counts; do
  start_hogs "$h"
  sleep 2
  for ((n = 1; n <= trials; n++)); do
    [ "$suite" = examples ] || trial ab "$n" "$h"
    trial aa "$n" "$h"
  done
  stop_hogs
done | tee "$dir/trials.txt"

/usr/bin/python3 - "$dir/trials.txt" <<'PY'
import re, sys, collections
rows = [dict(re.findall(r"(\w+)=(\S*)", l)) | {"kind": l.split()[1]}
        for l in open(sys.argv[1]) if l.startswith("TRIAL")]
by = collections.defaultdict(list)
for r in rows:
    by[(r["hogs"], r["kind"])].append(r)
for (h, kind), rs in sorted(by.items()):
    inst = sum(int(r["instances"]) for r in rs)
    s = lambda k: sum(int(r[k]) for r in rs)
    line = "hogs %s %s: %d trials" % (h, "A/B" if kind == "ab" else "A/A", len(rs))
    if kind == "ab":
        line += ", caught %d/%d, neighbours flagged %d" % (s("caught"), len(rs), s("other_flagged"))
    else:
        line += ", flagged %d" % s("other_flagged")
    line += ", untouched %d/%d, noisy %d, disturbed %d, unknown %d; load %s-%s" % (
        s("untouched"), inst, s("noisy"), s("disturbed"), s("unknown"),
        min(r["load"] for r in rs), max(r["load"] for r in rs))
    print(line)
PY
