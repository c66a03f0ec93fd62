#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/A: the example suite run as BASE and as HEAD, N runs a side, compared;
# nothing changed, so every instance flagged regressed or improved is a
# false discovery. Repeated over PAIRS pairs, fresh runs each time. Bar
# (docs/performance.md): at most 1 of 52 flagged per pair, goal 0. Exit
# status 1 when a pair misses the bar.
#
#   benches/aa.sh [BUILD_DIR [PAIRS [OUT_DIR]]]
#
# Defaults: build, 3 pairs, a temporary directory for the files.
# OMPB_PROTOCOL picks how the runs of a side are made (docs/guide.md,
# "Comparing runs in CI"), N = OMPB_RUNS (default 10):
#   interleaved (default): BASE, HEAD, BASE, HEAD, ... one process each with
#     1/N of the default budget, files pooled with --base/--head;
#   processes: BASE with --processes N, then HEAD likewise;
#   ab: `ompbench ab` (sequential, --max-runs OMPB_MAX_RUNS, default 20;
#     OMPB_RUNS unused), which also prints the runs it used.
# Extra compare options: OMPB_COMPARE_ARGS. Every run is bounded by
# timeout(1). Check `uptime` first and report the load with the figures.
set -euo pipefail
build=${1:-build}
pairs=${2:-3}
out=${3:-$(mktemp -d)}
bin=$build/benches/examples
tool=$build/tools/ompbench
protocol=${OMPB_PROTOCOL:-interleaved}
runs=${OMPB_RUNS:-10}
run_args="--sample-count $(( (100 + runs - 1) / runs )) --warmup-time $(( 100000 / runs ))us --max-time $(( 5000 / runs ))ms"
[ -x "$bin" ] && [ -x "$tool" ] || { echo "aa.sh: build first (make build)" >&2; exit 2; }
case $protocol in interleaved|processes|ab) ;; *)
  echo "aa.sh: OMPB_PROTOCOL: invalid value '$protocol' (accepted: interleaved, processes, ab)" >&2
  exit 2 ;;
esac
mkdir -p "$out"

run() { # run FILE ARGS...
  local file=$1
  shift
  timeout 900 "$bin" "$@" --format json --output "$file" 2>>"$out/stderr.txt"
}

desc="$runs runs a side"
[ "$protocol" = ab ] && desc="at most ${OMPB_MAX_RUNS:-20} runs a side"
echo "A/A ($protocol, $desc): $bin, $pairs pairs; files in $out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
worst=0
for p in $(seq 1 "$pairs"); do
  t0=$SECONDS
  args=()
  if [ "$protocol" = ab ]; then
    # shellcheck disable=SC2086
    timeout 3600 "$tool" ab --max-runs "${OMPB_MAX_RUNS:-20}" --format json ${OMPB_COMPARE_ARGS:-} \
      --keep "$out/aa$p-runs" "$bin" "$bin" > "$out/aa$p-compare.json" 2>>"$out/stderr.txt" || true
    /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("  ab: %d runs a side, %d instance-runs (the 10-a-side recipe: %d), stopped: %s" % (
    d["base"]["runs"], d["instance_runs"], d["recipe_instance_runs"], d["stop_reason"]))' \
      "$out/aa$p-compare.json"
  elif [ "$protocol" = processes ]; then
    run "$out/aa$p-base.json" --processes "$runs"
    run "$out/aa$p-head.json" --processes "$runs"
    args=("$out/aa$p-base.json" "$out/aa$p-head.json")
  else
    for i in $(seq 1 "$runs"); do
      # shellcheck disable=SC2086
      run "$out/aa$p-base$i.json" $run_args
      # shellcheck disable=SC2086
      run "$out/aa$p-head$i.json" $run_args
      args+=(--base "$out/aa$p-base$i.json" --head "$out/aa$p-head$i.json")
    done
  fi
  secs=$((SECONDS - t0))
  # shellcheck disable=SC2086
  [ "$protocol" = ab ] ||
    "$tool" compare --format json ${OMPB_COMPARE_ARGS:-} "${args[@]}" > "$out/aa$p-compare.json"
  flagged=$(/usr/bin/python3 - "$out/aa$p-compare.json" "$secs" "$p" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
s = doc["summary"]
flagged = s["regressed"] + s["improved"]
names = [r["name"] + " " + r["verdict"] + " %+.1f%%" % r["change_pct"]
         for r in doc["instances"] if r["verdict"] in ("regressed", "improved")]
print("pair %s: %d flagged (%d regressed, %d improved), %d untouched, %d noisy, judged %d of %d;"
      " both sides' runs took %s s%s" % (sys.argv[3], flagged, s["regressed"], s["improved"],
      s["untouched"], s["noisy"], s["judged"], s["instances"], sys.argv[2],
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
