#!/usr/bin/env bash
# OMP_PLACES=cores OMP_PROC_BIND=close without --pin: the OpenMP runtime
# binds, ompbench only observes, and the header, the JSON context and
# --show-plan say so. With --pin as well, ompbench binds and says it
# overrides the runtime's placement; with --pin none the runtime still binds.
# GOMP_CPU_AFFINITY binds like OMP_PLACES; OMP_PROC_BIND=false binds nothing.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bench='^count_set_bits\[42'
export OMP_PLACES=cores OMP_PROC_BIND=close

"$bin" --test --threads 2 --filter "$bench" > "$tmp/out" 2> "$tmp/err" \
  || { echo "FAIL: console run"; cat "$tmp/err"; fail=1; }
grep -qF "placement:  no --pin; the OpenMP runtime binds" "$tmp/out" \
  && grep -qE '^places:     \{[0-9]' "$tmp/out" \
  && grep -qF "OMP_PLACES=cores OMP_PROC_BIND=close" "$tmp/out" \
  && ! grep -q '^pu map:' "$tmp/out" \
  || { echo "FAIL: header does not say the runtime binds:"; cat "$tmp/out"; fail=1; }

"$bin" --show-plan --threads 2 --filter "$bench" > "$tmp/plan" 2> "$tmp/err" \
  && grep -qF "the OpenMP runtime binds" "$tmp/plan" \
  && grep -qF "decided by the OpenMP runtime" "$tmp/plan" \
  && ! grep -q 't0->PU' "$tmp/plan" \
  || { echo "FAIL: --show-plan with OMP_PLACES:"; cat "$tmp/plan" "$tmp/err"; fail=1; }

"$bin" --test --threads 2 --filter "$bench" --format json --output "$tmp/r.json" 2> "$tmp/err" \
  || { echo "FAIL: json run"; cat "$tmp/err"; fail=1; }
python3 - "$tmp/r.json" <<'PY' || fail=1
import json, os, sys
doc = json.load(open(sys.argv[1]))
ctx = doc["context"]["ompbench"]
pin, env = ctx["pin"], ctx["environment"]
errors = []
if pin["binder"] != "runtime" or pin["given"]:
    errors.append("binder %r given %r" % (pin["binder"], pin["given"]))
if env.get("OMP_PLACES") != "cores" or env.get("OMP_PROC_BIND") != "close":
    errors.append("environment %r" % env)
if ctx["openmp"]["proc_bind"] != "close" or ctx["openmp"]["num_places"] < 1:
    errors.append("openmp %r" % ctx["openmp"])
# libgomp narrowed the initial thread to place 0 before main(); the usable
# set must still be this script's whole mask.
def parse(text):
    pus = set()
    for item in text.split(","):
        lo, _, hi = item.partition("-")
        pus.update(range(int(lo), int(hi or lo) + 1))
    return pus
if parse(ctx["topology"]["usable_cpuset"]) != os.sched_getaffinity(0):
    errors.append("usable %r != mask %r" % (ctx["topology"]["usable_cpuset"], os.sched_getaffinity(0)))
for plan in pin["plans"]:
    if any(p is not None for p in plan["pu"]):
        errors.append("runtime plan names PUs: %r" % plan)
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY

# --pin given as well: we bind, last, and say we override.
"$bin" --show-plan --threads 2 --pin compact --filter "$bench" > "$tmp/plan" 2> "$tmp/err" \
  && grep -qF "ompbench binds each team thread" "$tmp/plan" \
  && grep -qF "overrides OMP_PLACES/OMP_PROC_BIND" "$tmp/plan" \
  && grep -q 't0->PU' "$tmp/plan" \
  || { echo "FAIL: --pin with OMP_PLACES:"; cat "$tmp/plan" "$tmp/err"; fail=1; }
# --pin none only keeps ompbench from binding: the runtime still binds.
"$bin" --test --threads 2 --pin none --filter "$bench" > "$tmp/out" 2> "$tmp/err" \
  && grep -qF "placement:  --pin none; ompbench does not bind, but the OpenMP runtime still does (OMP_PLACES/OMP_PROC_BIND set)" "$tmp/out" \
  && ! grep -q "not pinned" "$tmp/err" \
  || { echo "FAIL: --pin none with OMP_PLACES:"; cat "$tmp/out" "$tmp/err"; fail=1; }

# OMP_PROC_BIND=false: the runtime binds nothing, whatever OMP_PLACES says,
# and without --pin nobody binds; the run warns.
OMP_PROC_BIND=false "$bin" --test --threads 2 --filter "$bench" > "$tmp/out" 2> "$tmp/err" \
  && grep -qF "placement:  no --pin; nobody binds: OMP_PROC_BIND=false" "$tmp/out" \
  && grep -qF "warning: threads are not pinned (OMP_PROC_BIND=false, no --pin)" "$tmp/err" \
  || { echo "FAIL: OMP_PROC_BIND=false:"; cat "$tmp/out" "$tmp/err"; fail=1; }

# GOMP_CPU_AFFINITY alone makes the runtime bind (libgomp and LLVM libomp).
pus=$(python3 -c 'import os; print(" ".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')
env -u OMP_PLACES -u OMP_PROC_BIND GOMP_CPU_AFFINITY="$pus" "$bin" --test --threads 2 \
  --filter "$bench" --format json --output "$tmp/g.json" 2> "$tmp/err" \
  || { echo "FAIL: run with GOMP_CPU_AFFINITY"; cat "$tmp/err"; fail=1; }
python3 - "$tmp/g.json" <<'PY' || fail=1
import json, sys
ctx = json.load(open(sys.argv[1]))["context"]["ompbench"]
pin = ctx["pin"]
if pin["binder"] != "runtime" or "GOMP_CPU_AFFINITY set" not in pin["description"]:
    print("FAIL: GOMP_CPU_AFFINITY: pin %r" % pin); sys.exit(1)
if any("pinned" in w for w in ctx["warnings"]):
    print("FAIL: GOMP_CPU_AFFINITY: warnings %r" % ctx["warnings"]); sys.exit(1)
PY
[ $fail -eq 0 ] && echo "pin_runtime: the runtime binds and the run says so"
exit $fail
