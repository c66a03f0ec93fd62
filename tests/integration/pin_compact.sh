#!/usr/bin/env bash
# --pin compact at T=2 on two usable PUs: the two team threads are bound to
# distinct PUs, run where the plan says, and do not migrate. The two PUs are
# taken from this script's own mask, so the host's size does not matter; on
# a 1-PU host the run must instead report oversubscription.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_PLACES OMP_PROC_BIND
fail=0
pus=$(python3 -c 'import os; print(",".join(map(str, sorted(os.sched_getaffinity(0))[:2])))')

if ! taskset -c "$pus" "$bin" --test --threads 2 --pin compact --filter '^count_set_bits\[42' \
     --format json --output "$tmp/r.json" 2> "$tmp/err"; then
  echo "FAIL: run under taskset -c $pus"; cat "$tmp/err"; exit 1
fi
python3 - "$tmp/r.json" "$pus" <<'PY' || fail=1
import json, sys
doc = json.load(open(sys.argv[1]))
mask = [int(p) for p in sys.argv[2].split(",")]
ctx = doc["context"]["ompbench"]
pin = ctx["pin"]
errors = []
if pin["policy"] != "compact" or pin["binder"] != "ompbench" or not pin["given"]:
    errors.append("pin %r" % {k: pin[k] for k in ("policy", "binder", "given")})
plan = [p for p in pin["plans"] if p["threads"] == 2]
if len(plan) != 1:
    errors.append("no T=2 plan in %r" % pin["plans"])
else:
    plan = plan[0]["pu"]
    if len(mask) == 2 and sorted(plan) != mask:
        errors.append("plan %r does not use both PUs of %r" % (plan, mask))
    if len(mask) == 1 and plan != mask * 2:
        errors.append("plan %r on a 1-PU mask" % plan)
for b in (b for b in doc["benchmarks"] if b["run_type"] == "iteration"):
    o = b["ompbench"]
    if o["pu_map"] != plan or o["migrations"] != 0:
        errors.append("%s ran on %r (plan %r), %r migrations" % (b["name"], o["pu_map"], plan, o["migrations"]))
    if len(mask) == 2 and len(set(o["pu_map"])) != 2:
        errors.append("%s: threads share a PU: %r" % (b["name"], o["pu_map"]))
if len(mask) == 1 and not any("oversubscribed" in w for w in ctx["warnings"]):
    errors.append("1-PU host without oversubscription warning")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
# The console header shows the policy and the map.
taskset -c "$pus" "$bin" --test --threads 2 --pin compact --filter '^count_set_bits\[42' > "$tmp/out" 2> "$tmp/err"
grep -qE '^placement:  --pin compact; ompbench binds' "$tmp/out" \
  && grep -qE '^pu map:     T=2: [0-9]+ [0-9]+$' "$tmp/out" \
  || { echo "FAIL: console header:"; cat "$tmp/out"; fail=1; }
[ $fail -eq 0 ] && echo "pin_compact: T=2 on distinct PUs of {$pus}"
exit $fail
