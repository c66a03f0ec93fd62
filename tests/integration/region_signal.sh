#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A region application stopped by SIGTERM or SIGINT (issue 19, defect 9;
# tests/region_signal_app.c): it dies of the signal (128 + signal) after
# writing the report of its completed instances, marked partial
# (interrupted_by), "done" with its 5 and "team" with its 4 instances and no
# failed entry; the same when every thread blocks every signal; an
# application that handles SIGTERM itself keeps it (exit 0, a complete
# report at exit, not partial); a fork child of a region application dies
# of a SIGTERM as any process would.
# Usage: region_signal.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/region_signal_app
[ -x "$app" ] || { echo "region_signal: no $app; skipped"; exit 77; }
pid=
set -m # background jobs keep SIGINT at its default
at_exit() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; }

# case NAME SIGNAL WANT_RC BY MODE: BY is the interrupted_by wanted, - none.
case_() {
  local name=$1 sig=$2 want=$3 by=$4 mode=${5:-} i
  rm -f "$tmp/mark" "$tmp/r.json"
  OMPB_REGIONS_OUTPUT="$tmp/r.json" "$app" "$tmp/mark" $mode > /dev/null 2> "$tmp/err" &
  pid=$!
  for i in $(seq $((600 * mult))); do [ -e "$tmp/mark" ] && break; sleep 0.05; done
  [ -e "$tmp/mark" ] || fail "$name: the application never reached its loop"
  sleep 0.1
  kill -"$sig" "$pid"
  # Bounded: a signal that vanished would leave the loop running a minute.
  for i in $(seq $((300 * mult))); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$pid" 2>/dev/null && { fail "$name: still running after the signal"; kill -9 "$pid"; }
  wait "$pid"
  local rc=$?
  pid=
  [ "$rc" -eq "$want" ] || { fail "$name: exit status $rc, want $want"; cat "$tmp/err"; }
  ls "$tmp" | grep -q '\.tmp' && fail "$name: a temporary file is left"
  python3 - "$tmp/r.json" "$by" <<'PY' || { fails=$((fails + 1)); cat "$tmp/err"; }
import json, sys
path, by = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(path))
except (OSError, ValueError) as e:
    print("FAIL: no region report: %s" % e); sys.exit(1)
ctx, errors = d["context"], []
if by == "-":
    if "partial" in ctx:
        errors.append("marked partial: %r" % ctx.get("interrupted_by"))
elif ctx.get("partial") is not True or ctx.get("interrupted_by") != by:
    errors.append("not marked partial by %s: %r" % (by, ctx.get("interrupted_by")))
found = {}
for b in d["benchmarks"]:
    if b["run_type"] == "iteration":
        found[b["name"]] = b
        if b.get("error_occurred"):
            errors.append("%s failed: %s" % (b["name"], b.get("error_message")))
want = {"region:done[t=1]": 5, "region:team[t=2]": 4}
for name, n in want.items():
    b = found.get(name)
    if not b or b["iterations"] != n:
        errors.append("%s: want %d instances, got %r (entries %s)" % (name, n, b and b["iterations"], sorted(found)))
if not any(k.startswith("region:spin") for k in found):
    errors.append("no spin entry: %s" % sorted(found))
for e in errors:
    print("FAIL: %s" % e)
sys.exit(1 if errors else 0)
PY
}

case_ SIGTERM TERM 143 SIGTERM
grep -q 'interrupted by SIGTERM; the region report' "$tmp/err" || fail "SIGTERM: no message"
case_ SIGINT INT 130 SIGINT
case_ "every signal blocked" TERM 143 SIGTERM blocked
case_ "own SIGTERM handler" TERM 0 - handled

# A fork child: SIGTERM ends it (the parent exits 0 when it died of it).
rm -f "$tmp/mark"
OMPB_REGIONS_OUTPUT="$tmp/f.json" timeout $((60 * mult)) "$app" "$tmp/mark" fork > /dev/null 2> "$tmp/err" &
pid=$!
for i in $(seq $((600 * mult))); do [ -s "$tmp/mark" ] && break; sleep 0.05; done
[ -s "$tmp/mark" ] && kill -TERM "$(cat "$tmp/mark")" || fail "fork: the child never started"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] || { fail "fork: the child did not die of SIGTERM (parent status $rc)"; cat "$tmp/err"; }

[ $fails -eq 0 ] && echo "region_signal: a signalled region application writes its partial report"
[ $fails -eq 0 ]
