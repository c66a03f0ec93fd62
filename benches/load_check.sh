#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Calibration on a busy machine (issue 18, docs/performance.md "Calibration
# under load"): the example suite at the CI setting, first REF runs as the
# machine is (the reference: each instance's median sample size), then RUNS
# runs with HOGS CPU hogs (busy loops started here, bounded by timeout(1),
# stopped by PID), optionally under a runner double that acknowledges every
# request DELAY seconds late. A run fails the check when an instance's
# sample size is off by more than 10x from its reference, or when it got
# fewer rounds than asked without a reason in its JSON. Prints the load,
# the counts and every miss; exit status 1 on a miss.
#
#   benches/load_check.sh [BUILD_DIR [RUNS [HOGS [DELAY [REF [OUT_DIR]]]]]]
#
# Defaults: build, 40 runs, 2 hogs, no runner, 3 reference runs, a
# temporary directory. Start it on a quiet machine: the reference is what
# calibration gives when nothing competes.
set -euo pipefail
build=${1:-build}
runs=${2:-40}
hogs=${3:-2}
delay=${4:-0}
ref=${5:-3}
out=${6:-$(mktemp -d)}
bin=$build/benches/examples
here=$(cd "$(dirname "$0")" && pwd)
ci_args=(--sample-count 10 --warmup-time 10ms --max-time 500ms --format json)
[ -x "$bin" ] || { echo "load_check.sh: build first (make build)" >&2; exit 2; }
mkdir -p "$out"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

run() { # run FILE [ENV...]
  local file=$1
  shift
  env "$@" timeout 900 "$bin" "${ci_args[@]}" --output "$file" 2>>"$out/stderr.txt" >/dev/null
}

echo "load before the reference: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$ref"); do run "$out/ref_$i.json"; done

for _ in $(seq "$hogs"); do
  timeout 7200 sh -c 'while :; do :; done' &
  pids+=($!)
done
runner_env=(OMPB_RUNNER_CTL_FIFO=/nonexistent/ctl OMPB_RUNNER_ACK_FIFO=/nonexistent/ack)
if [ "$delay" != 0 ]; then
  mkfifo "$out/ctl.fifo" "$out/ack.fifo"
  timeout 7200 python3 "$here/../tests/runner_peer.py" "$out/ctl.fifo" "$out/ack.fifo" \
    slow -1 "$out/ready" "$delay" &
  pids+=($!)
  for _ in $(seq 100); do [ -e "$out/ready" ] && break; sleep 0.05; done
  runner_env=(CODSPEED_ENV=runner OMPB_RUNNER_CTL_FIFO="$out/ctl.fifo"
              OMPB_RUNNER_ACK_FIFO="$out/ack.fifo" OMPB_HOOKS_TIMEOUT_MS=5000
              OMPB_HOOKS_BUDGET_MS=3600000)
fi
sleep 2
loads=()
for i in $(seq "$runs"); do
  loads+=("$(cut -d' ' -f1 /proc/loadavg)")
  run "$out/load_$i.json" "${runner_env[@]}"
done
cleanup
echo "load during the runs (1-min average at each start): ${loads[*]}"

python3 - "$out" "$ref" "$runs" <<'PY'
import json, statistics, sys
out, ref, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def entries(path):
    d = json.load(open(path))
    return {b["name"]: b for b in d["benchmarks"] if b.get("run_type") == "iteration"}
sizes = {}
for i in range(1, ref + 1):
    for name, b in entries(f"{out}/ref_{i}.json").items():
        sizes.setdefault(name, []).append(b["ompbench"]["sample_size"])
reference = {n: statistics.median(v) for n, v in sizes.items()}
misses, checked, short, marked, recal, low_share = [], 0, 0, 0, 0, 0
for i in range(1, runs + 1):
    for name, b in entries(f"{out}/load_{i}.json").items():
        o = b["ompbench"]
        checked += 1
        marked += bool(o.get("marks"))
        recal += o.get("calibration", {}).get("recalibrations", 0) > 0
        low_share += "cpu_share" in o.get("marks", [])
        r, n = reference.get(name), o["sample_size"]
        if r and (n > 10 * r or n * 10 < r):
            misses.append(f"run {i}: {name}: sample size {n}, quiet {r:g}")
        if o["rounds"] < 10:
            short += 1
            if not o.get("short_reason"):
                misses.append(f"run {i}: {name}: {o['rounds']} of 10 rounds, no reason")
print(f"{checked} instance runs checked: {len(misses)} misses, {short} with fewer rounds "
      f"(each with its reason), {recal} recalibrated, {marked} marked ({low_share} for CPU share)")
for m in misses:
    print("MISS", m)
sys.exit(1 if misses else 0)
PY
