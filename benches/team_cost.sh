#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The cost of a round versus the team size T (docs/methodology.md, "Large
# teams"): for T = 1, 2, 4, ..., 512 runs a one-iteration body
# (add_two_integers) with a fixed sample size, once with N1 and once with N2
# measured rounds; the difference of the two wall times over N2 - N1 is the
# period of one round (start barrier, timed loop, reduction, the master's
# recording), free of start-up costs. Also the median makespan of a round
# (mostly the time the last thread needs to leave the start barrier) and the
# peak RSS difference per thread x round (the record's per-thread arrays).
#   benches/team_cost.sh BUILD_DIR [N1 N2]
# Oversubscribed teams measure time slicing of this machine, not a many-core
# node: read the figures with the machine's load (uptime, printed first).
set -euo pipefail
build=$1 n1=${2:-50} n2=${3:-550}
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO="$tmp/none" OMPB_RUNNER_ACK_FIFO="$tmp/none"
unset OMP_PLACES OMP_PROC_BIND
uptime
nproc_usable=$(nproc)
echo "usable PUs: $nproc_usable"
run() {   # run T N: prints "wall_s maxrss_kb", writes $tmp/r.json
  python3 - "$bin" "$1" "$2" "$tmp/r.json" <<'PY'
import resource, subprocess, sys, time
b, t, n, out = sys.argv[1:]
t0 = time.perf_counter()
subprocess.run([b, "--filter", r"^add_two_integers\[\(0, 0\)", "--threads", t, "--sample-size", "1",
                "--sample-count", n, "--warmup-time", "0s", "--max-time", "600s", "--format",
                "json", "--output", out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
               check=True)
print(time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
PY
}
printf '%5s %12s %14s %16s\n' T round_us makespan_us rss_B/thr/round
for t in 1 2 4 8 16 32 64 128 256 512; do
  read -r w1 m1 < <(run "$t" "$n1")
  read -r w2 m2 < <(run "$t" "$n2")
  mk=$(python3 -c "import json,statistics as s;b=[x for x in json.load(open('$tmp/r.json'))['benchmarks'] if x.get('run_type')=='iteration'][0];print('%.1f'%(s.median(b['ompbench']['samples']['makespan_ns'])/1e3))")
  python3 -c "print('%5d %12.1f %14s %16.1f' % ($t, ($w2-$w1)/($n2-$n1)*1e6, '$mk', max(0,($m2-$m1))*1024/(($n2-$n1)*$t)))"
done
