#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# In-process repetitions against separate processes (docs/methodology.md):
# runs the example suite PROCESSES times, one process after another, each
# with --repetitions REPS, then benches/variance.py compares the spread of
# the repetition medians inside a process with the spread between processes.
#
#   benches/variance.sh [BUILD_DIR [PROCESSES [REPS [OUT_DIR]]]]
#
# Defaults: build, 10 processes, 5 repetitions (the default budget split
# five ways: ~15 s per process here), results kept in a temporary directory
# (or OUT_DIR). Extra options for the runs: OMPB_VARIANCE_ARGS. Each run is
# bounded by timeout(1). Check `uptime` first: other jobs on the machine are
# exactly the run-to-run variance this measures.
set -euo pipefail
build=${1:-build}
procs=${2:-10}
reps=${3:-5}
out=${4:-$(mktemp -d)}
bin=$build/benches/examples
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$bin" ] || { echo "variance.sh: $bin not found (build first: make build)" >&2; exit 2; }
mkdir -p "$out"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); results in $out"
start=$(date +%s)
for i in $(seq 1 "$procs"); do
  # shellcheck disable=SC2086
  timeout 600 "$bin" --repetitions "$reps" --format json --output "$out/run$i.json" \
    ${OMPB_VARIANCE_ARGS:-} 2>> "$out/stderr.txt"
  echo "  process $i of $procs done ($(( $(date +%s) - start )) s, load $(cut -d' ' -f1 /proc/loadavg))"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 "$here/variance.py" "$out"/run*.json
