#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Layout effects named (issue 29, item 4): the A/B fixture, the same
# fixture with 300 bytes of padding linked before it (every function moved,
# none changed) and a build whose `slowed` body really changed. Real runs
# give each side's result file (with where its body's code is); HEAD's
# times of `slowed` are then set to ten times BASE's, so that the verdict
# is "regressed" whatever the machine's noise, and only the code check
# differs between the pairs:
# - moved only: the note says "code unchanged: likely a code-layout or
#   alignment effect", in the console, markdown and JSON reports; the gate
#   fails with --fail-on-regression, and passes with --allow-layout-effects;
# - changed: "code changed (in slowed)", and the gate fails either way;
# - a file without a code location (stripped of it): "code check: unknown".
# Then `ompbench ab` on the moved pair with a HEAD 10x slower (its runs
# replay those files): regressed, annotated, not gating under
# --allow-layout-effects.
# Usage: layout_effect.sh BUILD_DIR SOURCE_DIR
fail_fast=1
. "$(dirname "$0")/lib.sh" "$@"
set -e
base=$(realpath "$build/tests/ab_fixture")
moved=$(realpath "$build/tests/ab_fixture_moved")
changed=$(realpath "$build/tests/ab_fixture_changed")
tool=$(realpath "$build/tools/ompbench")
for b in "$base" "$moved" "$changed"; do
  [ -x "$b" ] || { echo "no $b in this build"; exit 77; }
done
m=$mult
limit=$((120 * m))
quick=(--exact "slowed[t=1]" --threads 1 --sample-count 5 --sample-size 50 --warmup-time 0
       --max-time 200ms --processes 3 --format json)
timeout "$limit" "$base" "${quick[@]}" --output "$tmp/base.json" > /dev/null
timeout "$limit" "$moved" "${quick[@]}" --output "$tmp/moved.json" > /dev/null
timeout "$limit" "$changed" "${quick[@]}" --output "$tmp/changed.json" > /dev/null

# HEAD's rounds of `slowed`: ten times BASE's, all clean (a tight 10x).
slow() { # slow HEAD.json OUT.json [drop-code]
  /usr/bin/python3 - "$tmp/base.json" "$1" "$2" "${3:-}" <<'PY'
import json, sys
base, head = (json.load(open(f)) for f in sys.argv[1:3])
ref = [b for b in base["benchmarks"] if b["run_type"] == "iteration"][0]["ompbench"]
for b in head["benchmarks"]:
    if b["run_type"] != "iteration":
        continue
    o = b["ompbench"]
    s = o["samples"]
    assert o["code"]["object"].startswith("/") and o["code"]["address"] > 0, o.get("code")
    s["makespan_ns"] = [10 * v * o["sample_size"] // ref["sample_size"] for v in ref["samples"]["makespan_ns"]]
    n = len(s["makespan_ns"])
    s["clean"] = [True] * n
    for k in ("start_skew_ns", "busy_ns", "start_offset_ns", "away_ns", "preemptions"):
        s.pop(k, None)
    o["rounds"] = n
    if sys.argv[4]:
        o.pop("code")
json.dump(head, open(sys.argv[3], "w"))
PY
}
# BASE's own rounds all clean too, so that the pair is judged on them.
/usr/bin/python3 - "$tmp/base.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    if b["run_type"] == "iteration":
        b["ompbench"]["samples"]["clean"] = [True] * len(b["ompbench"]["samples"]["makespan_ns"])
json.dump(d, open(sys.argv[1], "w"))
PY
slow "$tmp/moved.json" "$tmp/moved10.json"
slow "$tmp/changed.json" "$tmp/changed10.json"
slow "$tmp/moved.json" "$tmp/nocode10.json" drop

cmp_run() { # cmp_run WANT-STATUS HEAD.json OUT-PREFIX [options]
  local want=$1 head=$2 out=$3
  shift 3
  set +e
  timeout "$limit" "$tool" compare --fail-on-regression "$@" --format json \
    "$tmp/base.json" "$head" > "$out.json" 2> "$out.err"
  local status=$?
  set -e
  [ "$status" = "$want" ] || fail "compare $* $head: exit status $status, want $want ($(cat "$out.err"))"
}
row() { # row FILE.json CODE: CODE with the row of slowed as r
  /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
r=[x for x in d['instances'] if x['name'].startswith('slowed')][0]; $2" "$1"
}

cmp_run 1 "$tmp/moved10.json" "$tmp/m"
row "$tmp/m.json" '
assert r["verdict"] == "regressed", r
assert r["code"]["state"] == "unchanged" and r["code"]["functions"] >= 1, r["code"]
assert "code unchanged: likely a code-layout or alignment effect" in r["note"], r["note"]'
grep -q "1 instance claimed a change although the body's machine code is the same" "$tmp/m.err" ||
  fail "no warning for the layout effect: $(cat "$tmp/m.err")"
cmp_run 0 "$tmp/moved10.json" "$tmp/ma" --allow-layout-effects
grep -q "allow-layout-effects: the regressed ones do not fail the gate" "$tmp/ma.err" ||
  fail "--allow-layout-effects not said: $(cat "$tmp/ma.err")"
# The console and markdown reports say it too.
timeout "$limit" "$tool" compare "$tmp/base.json" "$tmp/moved10.json" > "$tmp/m.txt" 2>/dev/null
grep -q "code unchanged: likely a code-layout or alignment effect" "$tmp/m.txt" ||
  fail "console: $(cat "$tmp/m.txt")"
timeout "$limit" "$tool" compare --format markdown "$tmp/base.json" "$tmp/moved10.json" \
  > "$tmp/m.md" 2>/dev/null
grep -q "code unchanged: likely a code-layout or alignment effect" "$tmp/m.md" ||
  fail "markdown: $(cat "$tmp/m.md")"

cmp_run 1 "$tmp/changed10.json" "$tmp/c" --allow-layout-effects
row "$tmp/c.json" '
assert r["verdict"] == "regressed", r
assert r["code"]["state"] == "changed" and r["code"]["detail"] == "slowed", r["code"]
assert "code changed (in slowed)" in r["note"], r["note"]
assert "layout" not in r["note"], r["note"]'

cmp_run 1 "$tmp/nocode10.json" "$tmp/n" --allow-layout-effects
row "$tmp/n.json" '
assert r["code"]["state"] == "unknown", r["code"]
assert "code check: unknown (HEAD" in r["note"], r["note"]'

# ab on the moved pair, HEAD 10x slower: regressed, annotated, and under
# --allow-layout-effects (and --allow-undecided for its neighbours) the gate passes.
# Each side's run writes the file made above from real runs (a real code
# location, all rounds clean, HEAD ten times BASE; each run's times scaled
# by 1 +- 0.1% so that the runs spread), not a time measured under the
# machine's load, which could make the pair "disturbed".
cat > "$tmp/replay.py" <<'PY'
import json, os, sys
side, template, args = sys.argv[1], sys.argv[2], sys.argv[3:]
count = os.path.join(os.path.dirname(template), side + ".n")
k = int(open(count).read()) if os.path.exists(count) else 0
open(count, "w").write(str(k + 1))
d = json.load(open(template))
for b in d["benchmarks"]:
    if b["run_type"] == "iteration":
        s = b["ompbench"]["samples"]
        s["makespan_ns"] = [round(v * (1 + 0.001 * ((k * 7) % 3 - 1))) for v in s["makespan_ns"]]
json.dump(d, open(args[args.index("--output") + 1], "w"))
PY
replay() { # replay SIDE BINARY TEMPLATE.json: a side's command for ab
  cat > "$tmp/$1.sh" <<EOF
#!/bin/sh
case " \$* " in *" --list "*) exec "$2" "\$@";; esac
exec /usr/bin/python3 "$tmp/replay.py" $1 "$3" "\$@"
EOF
  chmod +x "$tmp/$1.sh"
}
replay base "$base" "$tmp/base.json"
replay head "$moved" "$tmp/moved10.json"
set +e
timeout "$((300 * m))" "$tool" ab --seed 7 --max-runs 8 --fail-on-regression --allow-undecided \
  --allow-layout-effects --format json --output "$tmp/ab.json" --base-cmd "$tmp/base.sh" \
  --head-cmd "$tmp/head.sh" -- --exact "slowed[t=1]" --threads 1 2> "$tmp/ab.err"
status=$?
set -e
row "$tmp/ab.json" '
assert r["verdict"] == "regressed", r
assert r["code"]["state"] == "unchanged", r["code"]
assert "code unchanged: likely a code-layout or alignment effect" in r["note"], r["note"]'
[ "$status" = 0 ] || fail "ab --allow-layout-effects: exit status $status ($(cat "$tmp/ab.err"))"
grep -q "1 regressed instance has the same machine code in both builds" "$tmp/ab.err" ||
  fail "ab: no warning: $(cat "$tmp/ab.err")"
echo "layout_effect: ok"
