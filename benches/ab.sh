#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/B: the fixture tests/ab_fixture.c run at factor 1 (BASE) and at each
# FACTOR (HEAD: its `slowed` benchmark does FACTOR times the work, its
# neighbours the same), with the setting docs/guide.md recommends for CI,
# then compared; TRIALS times per factor, fresh runs each time. Bars
# (docs/performance.md): a 20% slowdown (1.2) flagged regressed in at least
# 9 of 10 trials, a 2x slowdown in every trial, and every neighbour
# untouched in at least 9 of 10 trials. Exit status 1 when a bar is missed.
#
#   benches/ab.sh [BUILD_DIR [TRIALS [FACTORS [OUT_DIR]]]]
#
# Defaults: build, 10 trials, factors "1.2 2", a temporary directory. The
# run setting is OMPB_CI_ARGS (default: --processes 5). Each run is bounded
# by timeout(1). Check `uptime` first and report the load with the figures.
set -euo pipefail
build=${1:-build}
trials=${2:-10}
factors=${3:-1.2 2}
out=${4:-$(mktemp -d)}
bin=$build/tests/ab_fixture
tool=$build/tools/ompbench
ci_args=${OMPB_CI_ARGS:---processes 5}
[ -x "$bin" ] && [ -x "$tool" ] || { echo "ab.sh: build first (make build)" >&2; exit 2; }
mkdir -p "$out"

run() { # run FACTOR FILE
  # shellcheck disable=SC2086
  OMPB_AB_FACTOR=$1 timeout 600 "$bin" $ci_args --format json --output "$2" 2>>"$out/stderr.txt"
}

echo "A/B: $bin $ci_args, $trials trials per factor ($factors); files in $out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for f in $factors; do
  hits=0 clean=0
  for t in $(seq 1 "$trials"); do
    run 1 "$out/f$f-t$t-base.json"
    run "$f" "$out/f$f-t$t-head.json"
    "$tool" compare --format json "$out/f$f-t$t-base.json" "$out/f$f-t$t-head.json" \
      > "$out/f$f-t$t-compare.json"
    read -r hit ok line < <(/usr/bin/python3 - "$out/f$f-t$t-compare.json" <<'PY'
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["instances"]}
s = rows.pop("slowed")
hit = s["verdict"] == "regressed"
ok = all(r["verdict"] == "untouched" for r in rows.values())
others = " ".join("%s=%s" % (n, r["verdict"]) for n, r in rows.items() if r["verdict"] != "untouched")
print(int(hit), int(ok), "slowed %s %+.1f%% [%+.1f%%, %+.1f%%]; neighbours %s" % (
    s["verdict"], s["change_pct"], s["ci_low_pct"] or 0, s["ci_high_pct"] or 0,
    "all untouched" if ok else others))
PY
)
    hits=$((hits + hit))
    clean=$((clean + ok))
    echo "  factor $f, trial $t: $line (load $(cut -d' ' -f1 /proc/loadavg))"
  done
  echo "factor $f: slowed regressed in $hits of $trials trials; neighbours all untouched in $clean of $trials"
  nine=$(( (trials * 9 + 9) / 10 ))
  need=$trials
  awk -v f="$f" 'BEGIN { exit !(f < 1.5) }' && need=$nine
  [ "$hits" -ge "$need" ] && [ "$clean" -ge "$nine" ] || status=1
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
