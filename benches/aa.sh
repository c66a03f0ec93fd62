#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/A: the example suite run twice with the setting docs/guide.md recommends
# for CI, compared; nothing changed, so every instance flagged regressed or
# improved is a false discovery. Repeated over PAIRS pairs, each pair two
# fresh runs. Bar (docs/performance.md): at most 1 of 52 flagged per pair,
# goal 0. Exit status 1 when a pair misses the bar.
#
#   benches/aa.sh [BUILD_DIR [PAIRS [OUT_DIR]]]
#
# Defaults: build, 3 pairs, a temporary directory for the files. The run
# setting is OMPB_CI_ARGS (default: --processes 5, the recommended one);
# extra compare options go in OMPB_COMPARE_ARGS. Every run is bounded by
# timeout(1). Check `uptime` first and report the load with the figures.
set -euo pipefail
build=${1:-build}
pairs=${2:-3}
out=${3:-$(mktemp -d)}
bin=$build/benches/examples
tool=$build/tools/ompbench
ci_args=${OMPB_CI_ARGS:---processes 5}
[ -x "$bin" ] && [ -x "$tool" ] || { echo "aa.sh: build first (make build)" >&2; exit 2; }
mkdir -p "$out"

run() { # run FILE: one CI run of the example suite, timed
  local t0=$SECONDS
  # shellcheck disable=SC2086
  timeout 900 "$bin" $ci_args --format json --output "$1" 2>>"$out/stderr.txt"
  echo $((SECONDS - t0))
}

echo "A/A: $bin $ci_args, $pairs pairs; files in $out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
worst=0
for p in $(seq 1 "$pairs"); do
  tb=$(run "$out/aa$p-base.json")
  th=$(run "$out/aa$p-head.json")
  # shellcheck disable=SC2086
  "$tool" compare --format json ${OMPB_COMPARE_ARGS:-} "$out/aa$p-base.json" \
    "$out/aa$p-head.json" > "$out/aa$p-compare.json"
  flagged=$(/usr/bin/python3 - "$out/aa$p-compare.json" "$tb" "$th" "$p" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["summary"]
flagged = s["regressed"] + s["improved"]
names = [r["name"] + " " + r["verdict"] + " %+.1f%%" % r["change_pct"]
         for r in doc["instances"] if r["verdict"] in ("regressed", "improved")]
print("pair %s: %d flagged (%d regressed, %d improved), %d untouched, %d noisy, judged %d of %d;"
      " runs %s s + %s s%s" % (sys.argv[4], flagged, s["regressed"], s["improved"],
      s["untouched"], s["noisy"], s["judged"], s["instances"], sys.argv[2], sys.argv[3],
      (": " + ", ".join(names)) if names else ""), file=sys.stderr)
print(flagged)
PY
)
  [ "$flagged" -gt "$worst" ] && worst=$flagged
  echo "  load now: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "worst pair: $worst flagged (bar: at most 1, goal 0)"
[ "$worst" -le 1 ]
