#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A/B: the fixture tests/ab_fixture.c run at factor 1 (BASE) and at each
# FACTOR (HEAD: its `slowed` benchmark does FACTOR times the work, its
# neighbours the same), OMPB_RUNS runs a side (default 10), then compared; TRIALS times per
# factor, fresh runs each time. Bars (docs/performance.md): a 20% slowdown
# (1.2) flagged regressed in at least 9 of 10 trials, a 2x slowdown in
# every trial; no neighbour ever flagged, and the three steady_chain
# neighbours untouched in at least 9 of 10 trials. (steady_sum, the fourth
# neighbour, is layout-sensitive: its runs spread ~12% between processes on
# the development VM, so ten runs cannot show it untouched at 5%, and
# "noisy" is its honest verdict; it must still never be flagged.) Exit
# status 1 when a bar is missed.
#
#   benches/ab.sh [BUILD_DIR [TRIALS [FACTORS [OUT_DIR]]]]
#
# Defaults: build, 10 trials, factors "1.2 2", a temporary directory.
# OMPB_PROTOCOL picks how the runs of a side are made (docs/guide.md,
# "Comparing runs in CI"), N = OMPB_RUNS:
#   interleaved (default): BASE, HEAD, BASE, HEAD, ... one process each with
#     1/N of the default budget, files pooled with --base/--head;
#   processes: BASE with --processes N, then HEAD likewise;
#   ab: `ompbench ab` (sequential: runs only the undecided instances again,
#     --max-runs OMPB_MAX_RUNS, default 20; OMPB_RUNS unused); each trial
#     also prints the runs it used against the 10-a-side recipe's.
# Each run is bounded by timeout(1). Check `uptime` first and report the
# load with the figures.
set -euo pipefail
build=${1:-build}
trials=${2:-10}
factors=${3:-1.2 2}
out=${4:-$(mktemp -d)}
bin=$build/tests/ab_fixture
tool=$build/tools/ompbench
protocol=${OMPB_PROTOCOL:-interleaved}
runs=${OMPB_RUNS:-10}
ci_args="--processes $runs"
# One run with 1/N of the default budget: what one process of --processes N gets.
run_args="--sample-count $(( (100 + runs - 1) / runs )) --warmup-time $(( 100000 / runs ))us --max-time $(( 5000 / runs ))ms"
[ -x "$bin" ] && [ -x "$tool" ] || { echo "ab.sh: build first (make build)" >&2; exit 2; }
case $protocol in interleaved|processes|ab) ;; *)
  echo "ab.sh: OMPB_PROTOCOL: invalid value '$protocol' (accepted: interleaved, processes, ab)" >&2
  exit 2 ;;
esac
mkdir -p "$out"

run() { # run FACTOR FILE ARGS...
  local factor=$1 file=$2
  shift 2
  OMPB_AB_FACTOR=$factor timeout 600 "$bin" "$@" --format json --output "$file" 2>>"$out/stderr.txt"
}

# trial PREFIX FACTOR: the runs of one trial, and the compare report.
trial() {
  local p=$1 f=$2 args=()
  if [ "$protocol" = ab ]; then
    local t0=$SECONDS
    timeout 3600 "$tool" ab --max-runs "${OMPB_MAX_RUNS:-20}" --format json --keep "$p-runs" \
      --head-cmd "OMPB_AB_FACTOR=$f exec $bin" "$bin" > "$p-compare.json" 2>>"$out/stderr.txt" || true
    /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
print("    ab: %d runs a side, %d instance-runs (the 10-a-side recipe: %d), %s s, stopped: %s" % (
    d["base"]["runs"], d["instance_runs"], d["recipe_instance_runs"], sys.argv[2], d["stop_reason"]))' \
      "$p-compare.json" "$((SECONDS - t0))"
    return
  fi
  if [ "$protocol" = processes ]; then
    # shellcheck disable=SC2086
    run 1 "$p-base.json" $ci_args
    # shellcheck disable=SC2086
    run "$f" "$p-head.json" $ci_args
    args=("$p-base.json" "$p-head.json")
  else
    for i in $(seq 1 $runs); do
      # shellcheck disable=SC2086
      run 1 "$p-base$i.json" $run_args
      # shellcheck disable=SC2086
      run "$f" "$p-head$i.json" $run_args
      args+=(--base "$p-base$i.json" --head "$p-head$i.json")
    done
  fi
  "$tool" compare --format json "${args[@]}" > "$p-compare.json"
}

desc="$runs runs a side"
[ "$protocol" = ab ] && desc="at most ${OMPB_MAX_RUNS:-20} runs a side"
echo "A/B ($protocol, $desc): $bin, $trials trials per factor ($factors); files in $out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
for f in $factors; do
  hits=0 clean=0 quiet=0
  for t in $(seq 1 "$trials"); do
    trial "$out/f$f-t$t" "$f"
    read -r hit unflagged ok line < <(/usr/bin/python3 - "$out/f$f-t$t-compare.json" <<'PY'
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))["instances"]}
s = rows.pop("slowed")
hit = s["verdict"] == "regressed"
unflagged = all(r["verdict"] not in ("regressed", "improved") for r in rows.values())
ok = all(r["verdict"] == "untouched" for n, r in rows.items() if n.startswith("steady_chain"))
others = " ".join("%s=%s" % (n, r["verdict"]) for n, r in rows.items() if r["verdict"] != "untouched")
pct = lambda v: "-" if v is None else "%+.1f%%" % v
print(int(hit), int(unflagged), int(ok), "slowed %s %s [%s, %s]; neighbours %s" % (
    s["verdict"], pct(s["change_pct"]), pct(s["ci_low_pct"]), pct(s["ci_high_pct"]),
    "all untouched" if not others else "untouched but " + others))
PY
)
    hits=$((hits + hit))
    quiet=$((quiet + unflagged))
    clean=$((clean + ok))
    echo "  factor $f, trial $t: $line (load $(cut -d' ' -f1 /proc/loadavg))"
  done
  echo "factor $f: slowed regressed in $hits of $trials trials; no neighbour flagged in $quiet of $trials; steady_chain neighbours untouched in $clean of $trials"
  nine=$(( (trials * 9 + 9) / 10 ))
  need=$trials
  awk -v f="$f" 'BEGIN { exit !(f < 1.5) }' && need=$nine
  [ "$hits" -ge "$need" ] && [ "$quiet" -eq "$trials" ] && [ "$clean" -ge "$nine" ] || status=1
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
