#!/usr/bin/env bash
# Real binding under a taskset mask of one PU (PU 1 on the 2-PU CI machine,
# else the highest PU this script may use): for every policy the plan names
# only that PU, every team thread runs on it without migrating, the run says
# it is oversubscribed (2 threads on 1 PU), and a cpus:LIST outside the mask
# is refused with exit 2.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_PLACES OMP_PROC_BIND
fail=0
pu=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
bench='^count_set_bits\[42'

for pin in "" "--pin compact" "--pin spread" "--pin cpus:$pu"; do
  # shellcheck disable=SC2086
  if ! taskset -c "$pu" "$bin" --show-plan --threads 2 --filter "$bench" $pin > "$tmp/plan" 2> "$tmp/err"; then
    echo "FAIL: --show-plan $pin under taskset -c $pu"; cat "$tmp/err"; fail=1; continue
  fi
  if ! grep -qF "usable:   1 core, 1 PU (cpuset $pu)" "$tmp/plan" \
     || ! grep -qF "t0->PU$pu/" "$tmp/plan" \
     || grep -oE 't[0-9]+->PU[0-9]+' "$tmp/plan" | grep -vq -- "->PU$pu\$" \
     || ! grep -qF "[oversubscribed: 2 threads on 1 PU]" "$tmp/plan"; then
    echo "FAIL: plan $pin escapes the mask $pu:"; cat "$tmp/plan"; fail=1
  fi
  # shellcheck disable=SC2086
  if ! taskset -c "$pu" "$bin" --test --threads 2 --filter "$bench" $pin --format json \
       --output "$tmp/r.json" 2> "$tmp/err"; then
    echo "FAIL: run $pin under taskset -c $pu"; cat "$tmp/err"; fail=1; continue
  fi
  grep -qF "warning: oversubscribed: 2 threads on 1 PU" "$tmp/err" \
    || { echo "FAIL: no oversubscription warning ($pin)"; cat "$tmp/err"; fail=1; }
  python3 - "$tmp/r.json" "$pu" <<'PY' || fail=1
import json, sys
doc, pu = json.load(open(sys.argv[1])), int(sys.argv[2])
ctx = doc["context"]["ompbench"]
errors = []
if ctx["topology"]["usable_cpuset"] != str(pu):
    errors.append("usable_cpuset %r" % ctx["topology"]["usable_cpuset"])
for plan in ctx["pin"]["plans"]:
    if plan["pu"] != [pu] * plan["threads"] or not plan["oversubscribed"]:
        errors.append("plan %r" % plan)
runs = [b for b in doc["benchmarks"] if b["run_type"] == "iteration"]
if not runs:
    errors.append("no benchmark ran")
for b in runs:
    o = b["ompbench"]
    if o["pu_map"] != [pu, pu] or o["migrations"] != 0:
        errors.append("%s ran on %r with %r migrations" % (b["name"], o["pu_map"], o["migrations"]))
if not any("oversubscribed" in w for w in ctx["warnings"]):
    errors.append("no oversubscription warning in the JSON context")
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
done

# A PU outside the mask is refused before anything runs.
other=$((pu + 1))
taskset -c "$pu" "$bin" --show-plan --pin "cpus:$pu,$other" > "$tmp/plan" 2> "$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "PU $other is not usable by this process (usable PUs: $pu)" "$tmp/err" \
   || [ "$(wc -l < "$tmp/err")" -ne 1 ]; then
  echo "FAIL: cpus:$pu,$other under taskset -c $pu: rc=$rc"; cat "$tmp/err"; fail=1
fi
[ $fail -eq 0 ] && echo "pin_taskset: every thread stayed on PU $pu"
exit $fail
