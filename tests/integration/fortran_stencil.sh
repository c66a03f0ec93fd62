#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Fortran module (use ompbench), through two programs built with it:
# - benches/stencil.F90 (the region example in Fortran, OpenMP) at 1 and 2
#   threads in one process, its JSON report checked: one entry per region
#   and thread count named by the Fortran file, one instance per iteration,
#   no failure, every instance's makespan at least each thread's busy time,
#   the same final residual at 1 and 2 threads (within 1e-9); a bad option
#   refused with exit status 2 and a message naming it;
# - tests/fortran_api.f90: the hooks without a runner (no-ops) and under
#   `ompbench collect` (one window, ten ordered marker pairs, the uri and
#   integration it sent), a blank-padded region name, two different names
#   passed in one variable (a mismatch the library must see), and
#   ompb_regions_report's status codes.
# Skipped (77) when the build found no Fortran compiler.
set -uo pipefail
build=$1
bin="$build/benches/stencil_f90"
api="$build/tests/fortran_api"
tool="$build/tools/ompbench"
[ -x "$bin" ] && [ -x "$api" ] || { echo "no Fortran build (OMPB_FORTRAN_FOUND off): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export OMP_WAIT_POLICY=active
export OMPB_RUNNER_CTL_FIFO="$tmp/none.ctl" OMPB_RUNNER_ACK_FIFO="$tmp/none.ack"

OMPB_REGIONS_OUTPUT="$tmp/s.json" timeout 120 "$bin" --n 128 --iterations 40 --threads 1,2 \
  > "$tmp/s.txt" 2> "$tmp/s.err" || { echo "FAIL: stencil_f90 exited $?:"; cat "$tmp/s.err"; fail=1; }
python3 - "$tmp/s.json" "$tmp/s.txt" <<'PY' || fail=1
import json, re, sys
d = json.load(open(sys.argv[1]))
runs = {}
for line in open(sys.argv[2]):
    m = re.match(r"stencil_f90: n=\d+ iterations=(\d+) threads=(\d+) residual=\s*(\S+) loop_ns=\d+", line)
    if m:
        runs[int(m.group(2))] = (int(m.group(1)), float(m.group(3)))
entries = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
bad = []
if sorted(runs) != [1, 2]:
    bad.append("runs at 1 and 2 threads expected, got %r" % sorted(runs))
want = sorted("region:%s[t=%d]" % (r, t) for r in ("sweep", "boundary", "residual") for t in (1, 2))
if sorted(entries) != want:
    bad.append("entries %r, want %r" % (sorted(entries), want))
for name, b in sorted(entries.items()):
    t = int(name.split("t=")[1].rstrip("]"))
    o = b["ompbench"]
    iterations = runs.get(t, (0, 0))[0]
    uri = json.dumps(b)
    if '"benches/stencil.F90::%s"' % name.replace("[", "[") not in uri:
        bad.append("%s: no uri benches/stencil.F90::%s" % (name, name))
    if b.get("error_occurred") or o["region"]["instances"] != iterations or o["rounds"] != iterations:
        bad.append("%s: %r instances, %r kept, error %r; want %d" % (
            name, o["region"]["instances"], o["rounds"], b.get("error_message"), iterations))
    for k, (m, row) in enumerate(zip(o["samples"]["makespan_ns"], o["samples"]["busy_ns"])):
        if len(row) != t or any(x > m for x in row):
            bad.append("%s instance %d: makespan %d, busy %r" % (name, k, m, row))
            break
if 1 in runs and 2 in runs and abs(runs[1][1] - runs[2][1]) > 1e-9 * abs(runs[1][1]):
    bad.append("residual %r at 1 thread, %r at 2" % (runs[1][1], runs[2][1]))
for e in bad:
    print("FAIL:", e)
sys.exit(1 if bad else 0)
PY

timeout 30 "$bin" --threads 1,0 > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q "invalid --threads value '1,0' (accepted: " "$tmp/bad.err" \
  || { echo "FAIL: --threads 1,0 gave $rc:"; cat "$tmp/bad.err"; fail=1; }

# The API program alone: hooks are no-ops, regions and reports work.
timeout 60 "$api" "$tmp/a.json" > "$tmp/a.out" 2> "$tmp/a.err" \
  || { echo "FAIL: fortran_api exited $?:"; cat "$tmp/a.out" "$tmp/a.err"; fail=1; }
for want in 'not instrumented' 'hooks rc=0 x>0=T' 'report rc=-8' 'bad format rc=-1' 'codes -8 -1'; do
  grep -qx "$want" "$tmp/a.out" || { echo "FAIL: fortran_api printed no '$want':"; cat "$tmp/a.out"; fail=1; }
done
grep -q "invalid format 'yaml'" "$tmp/a.err" || { echo "FAIL: no message for format yaml"; fail=1; }
python3 - "$tmp/a.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
e = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
bad = []
p = e.get("region:padded[t=1]")
if not p or p.get("error_occurred") or p["ompbench"]["region"]["instances"] != 3:
    bad.append("region:padded[t=1] (a blank-padded name) not 3 clean instances: %r" % p)
if '"tests/fortran_api.f90::region:padded[t=1]"' not in json.dumps(p):
    bad.append("region:padded[t=1] lacks its call site's file in its uri")
s = e.get("region:second[t=1]")
if not s or not s.get("error_occurred") or "without a matching begin" not in s.get("error_message", ""):
    bad.append("end('second') after begin('first') in one variable not refused: %r" % s)
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY

# Under a runner: the hooks reach it (regions off, so that the window and
# the integration seen are the hooks' own).
unset OMPB_RUNNER_CTL_FIFO OMPB_RUNNER_ACK_FIFO
OMPB_REGIONS=0 timeout 120 "$tool" collect --json "$tmp/c.json" -- "$api" "$tmp/b.json" > "$tmp/c.out" 2>&1 \
  || { echo "FAIL: collect:"; cat "$tmp/c.out"; fail=1; }
grep -qx 'instrumented' "$tmp/c.out" || { echo "FAIL: not instrumented under collect"; cat "$tmp/c.out"; fail=1; }
python3 - "$tmp/c.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
w = [x for x in c["windows"] if x["uri"] == "fortran_api.f90::work[1000]"]
ok = (c["ok"] and len(c["windows"]) == 1 and c["integration"] == {"name": "my-loop-f90", "version": "1.0.0"}
      and len(w) == 1 and w[0]["rounds"] == 10 and all(s <= e for s, e in w[0]["pairs"]))
sys.exit(0 if ok else "FAIL: collected %r" % c)
PY
exit $fail
