#!/usr/bin/env bash
# Previewing plans for another machine: HWLOC_SYNTHETIC gives a fake
# topology (2 packages x 2 NUMA nodes x 8 cores x 2 PUs) on which
# --show-plan prints golden maps and nothing is bound, while a measured run
# is refused (exit 2, naming the variable); --topology-xml exports the
# machine's XML atomically (exit 2 and no file when the path is unwritable),
# PUs outside the allowed set (a cgroup) included.
set -uo pipefail
build=$1 src=$2
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_PLACES OMP_PROC_BIND
fail=0
bench='^count_set_bits\[42'
synth_run() { HWLOC_SYNTHETIC="pack:2 numa:2 core:8 pu:2" "$bin" "$@"; }

expect_line() {   # expect_line FILE LINE
  grep -qxF -- "$2" "$1" || { echo "FAIL: missing line: $2"; cat "$1"; fail=1; }
}

synth_run --show-plan --threads 4,8 --pin spread --filter "$bench" > "$tmp/spread" 2> "$tmp/err" \
  || { echo "FAIL: spread preview"; cat "$tmp/err"; fail=1; }
expect_line "$tmp/spread" "topology: 2 packages, 4 NUMA nodes, 32 cores, 64 PUs (not this machine: synthetic or XML, nothing is bound)"
expect_line "$tmp/spread" "usable:   32 cores, 64 PUs (cpuset 0-63)"
expect_line "$tmp/spread" "count_set_bits[42, t=4]    4  t0->PU0/core0 t1->PU16/core8 t2->PU32/core16 t3->PU48/core24"
expect_line "$tmp/spread" "count_set_bits[42, t=8]    8  t0->PU0/core0 t1->PU8/core4 t2->PU16/core8 t3->PU24/core12 t4->PU32/core16 t5->PU40/core20 t6->PU48/core24 t7->PU56/core28"

synth_run --show-plan --threads 4 --filter "$bench" > "$tmp/compact" 2> "$tmp/err" \
  || { echo "FAIL: compact preview"; cat "$tmp/err"; fail=1; }
expect_line "$tmp/compact" "pin:      --pin compact (default); ompbench binds each team thread to one PU at team start (hwloc)"
expect_line "$tmp/compact" "count_set_bits[42, t=4]    4  t0->PU0/core0 t1->PU2/core1 t2->PU4/core2 t3->PU6/core3"

# XML of the synthetic machine, then of this one.
synth_run --show-plan --filter "$bench" --topology-xml "$tmp/synth.xml" > /dev/null 2> "$tmp/err" \
  || { echo "FAIL: --topology-xml (synthetic)"; cat "$tmp/err"; fail=1; }
"$bin" --show-plan --filter "$bench" --topology-xml "$tmp/here.xml" > /dev/null 2> "$tmp/err" \
  || { echo "FAIL: --topology-xml"; cat "$tmp/err"; fail=1; }
python3 - "$tmp/synth.xml" "$tmp/here.xml" <<'PY' || fail=1
import os, sys
import xml.etree.ElementTree as ET
def pus(path):
    root = ET.parse(path).getroot()
    assert root.tag == "topology", root.tag
    return [o for o in root.iter("object") if o.get("type") == "PU"]
errors = []
if len(pus(sys.argv[1])) != 64:
    errors.append("synthetic export has %d PUs" % len(pus(sys.argv[1])))
here = {int(o.get("os_index")) for o in pus(sys.argv[2])}
if not os.sched_getaffinity(0) <= here:
    errors.append("export of this machine lacks usable PUs: %r" % here)
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY

# A measured run on a fake topology would bind nothing and count fake PUs:
# refused before anything runs, naming the variable.
expect_refused() {   # expect_refused VAR VALUE
  env "$1=$2" "$bin" --test --filter "$bench" --format json --output "$tmp/run.json" \
    > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || [ -e "$tmp/run.json" ] \
     || ! grep -qF "$1 is set: a fake topology can only be previewed with --show-plan" "$tmp/err"; then
    echo "FAIL: measured run with $1 set: rc=$rc"; cat "$tmp/err"; fail=1
  fi
}
expect_refused HWLOC_SYNTHETIC "pack:2 numa:2 core:8 pu:2"
expect_refused HWLOC_XMLFILE "$src/tests/data/topology/disallowed-2x2x2.xml"

# A recorded machine whose cgroup allows PUs 0-2 and 5 only: the summary and
# the export show all 8 PUs, the plan only the allowed ones.
HWLOC_XMLFILE="$src/tests/data/topology/disallowed-2x2x2.xml" "$bin" --show-plan --threads 4 \
  --filter "$bench" --topology-xml "$tmp/cgroup.xml" > "$tmp/cgroup" 2> "$tmp/err" \
  || { echo "FAIL: preview with disallowed PUs"; cat "$tmp/err"; fail=1; }
expect_line "$tmp/cgroup" "topology: 2 packages, 1 NUMA node, 4 cores, 8 PUs (not this machine: synthetic or XML, nothing is bound)"
expect_line "$tmp/cgroup" "usable:   3 cores, 4 PUs (cpuset 0-2,5)"
expect_line "$tmp/cgroup" "count_set_bits[42, t=4]    4  t0->PU0/core0 t1->PU2/core1 t2->PU5/core2 t3->PU1/core0"
n=$(grep -c 'type="PU"' "$tmp/cgroup.xml" 2> /dev/null)
[ "$n" = 8 ] || { echo "FAIL: export of the cgroup machine has ${n:-no} PUs, want 8"; fail=1; }

"$bin" --show-plan --filter "$bench" --topology-xml "$tmp/missing/m.xml" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "$tmp/missing/m.xml" "$tmp/err" || [ -e "$tmp/missing" ]; then
  echo "FAIL: unwritable --topology-xml: rc=$rc"; cat "$tmp/err"; fail=1
fi
[ $fail -eq 0 ] && echo "pin_preview: golden plans on a synthetic machine, XML exported"
exit $fail
