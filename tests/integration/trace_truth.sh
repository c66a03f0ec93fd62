#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What `ompbench trace` measures agrees with hand measurements of the same
# instances in the same run (issue 34, "Truth"; ratios, so the machine's
# load changes both sides alike):
# - tests/trace/imbalance.c (3:1 work split over two threads, region
#   markers "manual" inside each region): per instance, the traced
#   region's makespan within 1% of the markers' (median over instances),
#   and its imbalance within 0.05; the region is named FILE:LINE of its
#   construct (the program has line tables); the program's own markers
#   report where OMPB_REGIONS_OUTPUT says, apart from the trace's;
# - benches/stencil (no line tables: named by symbol), five solves in one
#   process: the traced main loop's makespan never above the program's own
#   loop_ns (timed around the construct: fork and join included) and within
#   1% of it in the least disturbed solve; both of its regions reported;
# - the same two programs built by clang for LLVM's libomp, traced through
#   OMPT (skipped with a line when clang or libomp is not installed).
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/../trace/trace_test.sh"
imb="$progs/trace_imbalance"
stencil="$build/benches/stencil"
line=$(grep -n "pragma omp parallel" "$src/tests/trace/imbalance.c" | head -1 | cut -d: -f1)

# check_imbalance RUNTIME PROGRAM: the 3:1 program's traced instances
# against its own markers.
check_imbalance() {
  local rt=$1 prog=$2
  OMPB_TRACE_NAMING=line OMPB_REGIONS_OUTPUT="$tmp/own_$rt.json" timeout 120 "$tool" trace \
    --output "$tmp/traced_$rt.json" -- "$prog" 2000000 20 > /dev/null 2> "$tmp/imb_$rt.err" \
    || { fail "imbalance ($rt): $(cat "$tmp/imb_$rt.err")"; return; }
  python3 - "$tmp/traced_$rt.json" "$tmp/own_$rt.json" "imbalance.c:$line" "$rt" <<'PY' || fail "imbalance ($rt): see above"
import json, statistics, sys
def entries(path):
    return {b["name"]: b for b in json.load(open(path))["benchmarks"] if b["run_type"] == "iteration"}
traced, own, name, rt = entries(sys.argv[1]), entries(sys.argv[2]), sys.argv[3], sys.argv[4]
t = traced.get("region:%s[t=2]" % name)
m = own.get("region:manual[t=2]")
assert t and m, "entries: traced %r, own %r" % (sorted(traced), sorted(own))
assert "region:manual[t=2]" not in traced and not any(k.startswith("region:imbalance") for k in own), \
    "the two reports mixed: %r %r" % (sorted(traced), sorted(own))
ts, ms = t["ompbench"]["samples"], m["ompbench"]["samples"]
assert len(ts["makespan_ns"]) == len(ms["makespan_ns"]) == 20, "instances differ"
ratio = statistics.median(a / b for a, b in zip(ts["makespan_ns"], ms["makespan_ns"]))
def imbalance(busy):
    return max(busy) / (sum(busy) / len(busy))
dimb = statistics.median(abs(imbalance(a) - imbalance(b)) for a, b in zip(ts["busy_ns"], ms["busy_ns"]))
print("imbalance program (%s): traced/manual makespan %.4f, |imbalance difference| %.4f, "
      "traced imbalance %.3f" % (rt, ratio, dimb, t["ompbench"]["stats"]["mean_imbalance"]))
assert abs(ratio - 1) < 0.01, "makespan ratio %.4f" % ratio
assert dimb < 0.05, "imbalance difference %.4f" % dimb
PY
}
check_imbalance libgomp "$imb"

# check_stencil RUNTIME PROGRAM: five solves in one process; every region
# of the program reported (the warm-up region and the main loop, five
# instances each), the main loop's makespan against the program's loop_ns.
check_stencil() {
  local rt=$1 prog=$2
  timeout 240 "$tool" trace --output "$tmp/stencil_$rt.json" -- "$prog" --n 256 --iterations 100 \
    --threads 2,2,2,2,2 > "$tmp/stencil_$rt.out" 2> "$tmp/stencil_$rt.err" \
    || { fail "stencil ($rt): $(cat "$tmp/stencil_$rt.err")"; return; }
  python3 - "$tmp/stencil_$rt.json" "$tmp/stencil_$rt.out" "$rt" <<'PY' || fail "stencil ($rt): see above"
import json, re, statistics, sys
loops = [float(x) for x in re.findall(r"loop_ns=(\d+)", open(sys.argv[2]).read())]
rt = sys.argv[3]
runs = {b["name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["run_type"] == "iteration"}
# Two regions (the warm-up and the main loop), five instances each; the
# main loop is the longer one.
assert len(runs) == 2 and all(b["ompbench"]["region"]["instances"] == 5 for b in runs.values()) \
    and len(loops) == 5, "entries %r, loop_ns %r" % (sorted(runs), loops)
if rt == "libgomp":
    assert "region:solve._omp_fn.1[t=2]" in runs, sorted(runs)
main = max(runs.values(), key=lambda b: sum(b["ompbench"]["samples"]["makespan_ns"]))
spans = main["ompbench"]["samples"]["makespan_ns"]
ratios = [s / l for s, l in zip(spans, loops)]
print("stencil (%s): traced makespan / loop_ns %s" % (rt, " ".join("%.4f" % r for r in ratios)))
# loop_ns also holds the fork and the join, where a loaded machine's
# preemptions land too (a thread preempted between its last row and the
# join barrier): the traced makespan is never above it, and in the least
# disturbed of the five solves within 1% of it.
assert len(spans) == 5 and max(ratios) <= 1.001 and max(ratios) > 0.99, ratios
PY
}
[ -x "$stencil" ] && check_stencil libgomp "$stencil"

# The same programs built by clang for LLVM's libomp (traced through OMPT),
# linked with this build's libompbench.
if ! command -v clang > /dev/null || ! echo 'int main(void){return 0;}' \
     | timeout 60 clang -fopenmp=libomp -x c - -o "$tmp/probe" 2> /dev/null; then
  echo "clang with libomp is not installed (Debian: clang, libomp-dev): the libomp runs are not checked"
  exit $((fails > 0))
fi
lib="$build/libompbench.a"
[ -e "$lib" ] || lib="$build/tests/shared/libompbench.so"
cflags="-std=c11 -O2 -fopenmp=libomp -I$src/include"
deps="$(pkg-config --libs hwloc jansson) -lm -ldl -lpthread"
# A sanitizer build's library calls gcc's ASan and UBSan runtimes: those,
# first on the line, rather than clang's own.
asan=""
[ -n "${OMPB_SANITIZE_FLAGS:-}" ] && asan="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
if timeout 120 clang $cflags -g $asan "$src/tests/trace/imbalance.c" "$lib" $deps -o "$tmp/imb_libomp" 2> "$tmp/cc.err" \
   && timeout 120 clang $cflags $asan "$src/benches/stencil.c" "$lib" $deps -o "$tmp/stencil_libomp" 2>> "$tmp/cc.err"; then
  # ldd into a file, then grep: `ldd | grep -q` under pipefail fails when
  # grep exits at its match while ldd still writes (SIGPIPE).
  ldd "$tmp/imb_libomp" > "$tmp/ldd.txt" 2>&1
  grep -q "libomp.so" "$tmp/ldd.txt" || fail "the clang build does not load libomp: $(cat "$tmp/ldd.txt")"
  check_imbalance libomp "$tmp/imb_libomp"
  check_stencil libomp "$tmp/stencil_libomp"
else
  fail "clang cannot build the programs for libomp: $(cat "$tmp/cc.err")"
fi
exit $((fails > 0))
