#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `ompbench trace` costs (docs/performance.md, "ompbench trace"):
# tests/trace/cost.c run K times untraced and K times traced, alternately,
# at T threads with OMP_WAIT_POLICY=active; each run prints per phase the
# 10th percentile and the median of one region's time on the encountering
# thread. Printed: the medians over the K runs of each figure, then
#   trace   = traced bare - untraced bare   (a traced instance, per thread:
#             the threads run their pairs at the same time)
#   pair    = untraced markers - untraced bare   (a region marker pair)
#   ratio   = trace / pair, from the p10 and from the median figures
#   slowdown of a program of 1e9/WORK_NS regions a second: traced work /
#             untraced work - 1
#   benches/trace_cost.sh BUILD_DIR [K [R [T [WORK_NS]]]]
# With RUNTIME=libomp, cost.c is built here by clang against LLVM's libomp
# and BUILD_DIR's static libompbench (the trace then goes through its OMPT
# tool); the default is the build's own, GCC and libgomp. With libomp a
# third variant runs too, "ompt": untraced, with tests/trace/ompt_null.c
# preloaded, a tool registering the trace's OMPT callbacks with nothing in
# them; its bare - the untraced bare is what the runtime's OMPT dispatch
# costs by itself, and traced - ompt what the trace's own work costs.
# Read them with the machine's load (uptime, printed first).
set -euo pipefail
build=$1 k=${2:-5} r=${3:-20000} t=${4:-2} work=${5:-10000}
tool="$build/tools/ompbench" bin="$build/tests/trace/trace_cost"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${RUNTIME:-libgomp}" = libomp ]; then
  src=$(cd "$(dirname "$0")/.." && pwd)
  timeout 120 clang -std=c11 -O2 -fopenmp=libomp -I"$src/include" "$src/tests/trace/cost.c" \
    "$build/libompbench.a" $(pkg-config --libs hwloc jansson) -lm -ldl -lpthread -o "$tmp/cost" \
    || { echo "trace_cost: could not build cost.c with clang and libomp" >&2; exit 2; }
  bin=$tmp/cost
  timeout 120 clang -std=c11 -O2 -fPIC -shared "$src/tests/trace/ompt_null.c" -o "$tmp/ompt_null.so" \
    || { echo "trace_cost: could not build ompt_null.c with clang" >&2; exit 2; }
fi
echo "runtime: $(ldd "$bin" | grep -oE 'lib(g?omp)[^ ]*' | head -1)"
export OMPB_RUNNER_CTL_FIFO="$tmp/none" OMPB_RUNNER_ACK_FIFO="$tmp/none" OMP_WAIT_POLICY=active
unset CODSPEED_ENV
uptime
for i in $(seq "$k"); do
  OMPB_REGIONS_OUTPUT=/dev/null timeout 300 "$bin" "$r" "$t" "$work" | sed 's/^/untraced /' >> "$tmp/runs"
  OMPB_REGIONS_OUTPUT=/dev/null timeout 300 "$tool" trace --output "$tmp/t.json" -- "$bin" "$r" "$t" "$work" \
    2> /dev/null | sed 's/^/traced /' >> "$tmp/runs"
  if [ -e "$tmp/ompt_null.so" ]; then
    OMPB_REGIONS_OUTPUT=/dev/null LD_PRELOAD="$tmp/ompt_null.so" timeout 300 "$bin" "$r" "$t" "$work" |
      sed 's/^/ompt /' >> "$tmp/runs"
  fi
done
uptime
python3 - "$tmp/runs" "$work" <<'PY'
import collections, statistics, sys
v = collections.defaultdict(list)
for line in open(sys.argv[1]):
    how, phase, _, p10, _, med = line.split()
    v[how, phase, "p10"].append(float(p10))
    v[how, phase, "median"].append(float(med))
m = {key: statistics.median(x) for key, x in v.items()}
for key in sorted(m):
    print("%-8s %-7s %-6s %9.1f ns  (runs: %s)" % (key + (m[key], " ".join("%.0f" % x for x in v[key]))))
for q in ("p10", "median"):
    trace = m["traced", "bare", q] - m["untraced", "bare", q]
    pair = m["untraced", "markers", q] - m["untraced", "bare", q]
    print("%s: trace %.1f ns per instance, marker pair %.1f ns, ratio %.2f" % (q, trace, pair, trace / pair))
    if ("ompt", "bare", q) in m:
        ompt = m["ompt", "bare", q] - m["untraced", "bare", q]
        print("%s: of which the runtime's OMPT dispatch (a tool doing nothing) %.1f ns, "
              "the trace's own work %.1f ns (%.2f pairs)" % (q, ompt, trace - ompt, (trace - ompt) / pair))
print("slowdown at %.0f regions/s (median): %+.2f%%" % (1e9 / float(sys.argv[2]),
      100 * (m["traced", "work", "median"] / m["untraced", "work", "median"] - 1)))
PY
