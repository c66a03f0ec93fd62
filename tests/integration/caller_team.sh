#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Caller teams (triad_parallel_for of the example suite) through the command
# line: --show-plan tags them; with OMP_PLACES/OMP_PROC_BIND the runtime binds
# the code's threads (ompbench binds nothing, the observed PU map has T
# distinct PUs) and the caller's settings do not leak into the next instance;
# --pin none runs them with the not-pinned warning; under callgrind they run
# in CPU simulation, one thread, with instructions counted in their window.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS
caller='^triad_parallel_for\[t=(1|2)\]'

"$bin" --show-plan --filter "$caller" > "$tmp/plan" 2>&1 \
  && [ "$(grep -c '\[caller team: t0 is the caller\]$' "$tmp/plan")" -eq 2 ] \
  || { echo "FAIL: --show-plan does not tag the caller teams:"; cat "$tmp/plan"; fail=1; }

# The runtime binds; a harness-team instance after the caller team still
# gets its own width (the caller's omp_set_num_threads is restored).
env OMP_PLACES=cores OMP_PROC_BIND=close timeout 120 "$bin" --test \
  --filter '^(triad_parallel_for\[t=2\]|thread_example)' --format json --output "$tmp/rt.json" \
  2> "$tmp/rt.err" || { echo "FAIL: run with OMP_PLACES:"; cat "$tmp/rt.err"; fail=1; }
python3 - "$tmp/rt.json" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]["ompbench"]
its = {e["name"]: e for e in doc["benchmarks"] if e["run_type"] == "iteration"}
errors = []
if ctx["pin"]["binder"] != "runtime":
    errors.append("binder %r" % ctx["pin"]["binder"])
t = its.get("triad_parallel_for[t=2]")
if not t or t.get("error_occurred") or t["ompbench"]["team"] != "caller":
    errors.append("caller team entry %r" % t)
elif len(set(t["ompbench"]["pu_map"])) != 2 or min(t["ompbench"]["pu_map"]) < 0:
    errors.append("the runtime did not spread the code's threads: pu_map %r" % t["ompbench"]["pu_map"])
h = its.get("thread_example[t=4]")
if not h or h.get("error_occurred") or h["ompbench"]["threads"] != 4:
    errors.append("harness entry after the caller team %r" % h)
if errors:
    sys.exit("FAIL: OMP_PLACES run: " + "; ".join(errors))
PY

timeout 120 "$bin" --test --pin none --filter "$caller" > /dev/null 2> "$tmp/none.err" \
  && grep -q "threads are not pinned (--pin none)" "$tmp/none.err" \
  || { echo "FAIL: --pin none:"; cat "$tmp/none.err"; fail=1; }

if [ -n "${OMPB_SANITIZE_FLAGS:-}" ] || grep -q '^OMPB_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null \
   || ! command -v valgrind > /dev/null; then
  echo "note: no valgrind run (sanitizer build or no valgrind)"
else
  uri='benches/examples.c::triad_parallel_for[t=2]'
  timeout 600 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$tmp/cg.%p.out" \
    "$bin" --filter '^triad_parallel_for\[t=2\]' --format json --output "$tmp/sim.json" \
    > /dev/null 2> "$tmp/sim.err" || { echo "FAIL: under callgrind:"; cat "$tmp/sim.err"; fail=1; }
  dump=$(grep -lxF "desc: Trigger: Client Request: $uri" "$tmp"/cg.* 2>/dev/null | head -1)
  ir=$([ -n "$dump" ] && sed -n 's/^totals: //p' "$dump")
  [ "${ir:-0}" -gt 0 ] || { echo "FAIL: no callgrind dump with instructions for $uri"; fail=1; }
  python3 - "$tmp/sim.json" <<'PY' || fail=1
import json, sys
e = [e for e in json.load(open(sys.argv[1]))["benchmarks"] if e["run_type"] == "iteration"][0]
o = e["ompbench"]
if e.get("error_occurred") or o["mode"] != "simulate" or o["threads"] != 1 or o["team"] != "caller":
    sys.exit("FAIL: simulation entry %r" % o)
PY
fi
[ "$fail" = 0 ] && echo "caller_team: ok"
exit "$fail"
