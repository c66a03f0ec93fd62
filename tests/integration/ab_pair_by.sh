#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench ab --pair-by instance` on the stand-in with chosen run values
# (tests/ab_fake.py, with two more instances): a bad value is one line
# and exit 2 with no report; after the first pair (every instance, both
# sides), each run names one instance (--exact), BASE's and HEAD's k-th
# runs name the same one, each round runs every instance still open once
# and no decided one again; the verdicts are those of pairs by run (steady
# untouched, a 10x slower HEAD regressed), and the JSON report says
# "pair_by": "instance". Nothing is measured: the
# stand-in writes its values, so no load changes what is checked.
# --pair-by auto (the default), on the stand-in made slow with sleeps:
# - each run starting 0.4 s late (a process start-up far above its
#   instances' time): the round of instance pairs after the first pair is
#   cut once it has taken twice the first pair, and every pair after it is
#   by run; the report says from which pair and why;
# - each instance taking 0.25 s and no start-up: a round of instance
#   pairs costs about what the first pair did, so every pair after the
#   first is by instance.
# Both compare sleeps of the same stand-in, 2x apart or more, in one run:
# a loaded machine slows the first pair and the rounds alike.
# Usage: ab_pair_by.sh BUILD_DIR SOURCE_DIR
fail_fast=1
. "$(dirname "$0")/lib.sh" "$@"
set -e
tool=$(realpath "$build/tools/ompbench")
fake=$(realpath "$src/tests/ab_fake.py")
[ -x "$tool" ] || { echo "no ompbench in this build"; exit 77; }
limit=$((120 * mult))

set +e
out=$(timeout "$limit" "$tool" ab --pair-by suite --output "$tmp/bad.txt" "$fake" "$fake" 2>&1)
status=$?
set -e
[ "$status" = 2 ] || fail "--pair-by suite: exit status $status, want 2 ($out)"
[ "$out" = "ompbench ab: --pair-by: invalid value 'suite' (accepted: auto, instance, run)" ] ||
  fail "--pair-by suite: message '$out'"
[ ! -e "$tmp/bad.txt" ] || fail "--pair-by suite: a report was written"

pair_args=(--pair-by instance)
# run ENV...: ab --pair-by instance (pair_args) over the stand-in, its arguments
# logged per side in $tmp/base.args and $tmp/head.args.
run() {
  rm -f "$tmp"/*.n "$tmp"/*.args
  env AB_FAKE_DIR="$tmp" AB_FAKE_MANY=2 "$@" timeout "$limit" "$tool" ab "${pair_args[@]}" \
    --seed 5 --max-runs 9 --format json --output "$tmp/ab.json" \
    --base-cmd "AB_FAKE_SIDE=base AB_FAKE_ARGS=$tmp/base.args $fake" \
    --head-cmd "AB_FAKE_SIDE=head AB_FAKE_ARGS=$tmp/head.args $fake" 2> "$tmp/ab.err" || true
}

run
python3 - "$tmp" <<'PY' || fail "the runs of --pair-by instance (above)"
import json, sys
d = sys.argv[1]
def runs(side):
    out = []
    for line in open(f"{d}/{side}.args"):
        a = line.split()
        out.append(a[a.index("--exact") + 1] if "--exact" in a else None)
    return out
base, head = runs("base"), runs("head")
errors = []
if base != head:
    errors.append(f"BASE's and HEAD's runs name different instances: {base} / {head}")
if base[:1] != [None]:
    errors.append(f"the first run selects {base[0]!r}, not every instance")
names = {"steady", "wild"} | {n for n in base[1:] if n and n.startswith("many/")}
if any(n is None for n in base[1:]):
    errors.append("a run after the first selects more than one instance")
# Rounds: each open instance once, in the rows' order, so a round ends
# where a name repeats or the order goes back.
rounds, cur = [], []
for n in base[1:]:
    if n in cur:
        rounds.append(cur)
        cur = []
    cur.append(n)
if cur:
    rounds.append(cur)
if not rounds or set(rounds[0]) != names:
    errors.append(f"the first round is {rounds[:1]}, not every instance once ({sorted(names)})")
doc = json.load(open(f"{d}/ab.json"))
if doc.get("pair_by") != "instance":
    errors.append(f"the report's pair_by is {doc.get('pair_by')!r}, not 'instance'")
verdict = {i["name"]: i["verdict"] for i in doc["instances"]}
if verdict.get("steady") != "untouched":
    errors.append(f"steady is {verdict.get('steady')}, not untouched")
decided = {n for n, v in verdict.items() if v in ("untouched", "regressed", "improved")}
for k, r in enumerate(rounds[1:], 1):
    if len(r) != len(set(r)):
        errors.append(f"round {k} runs an instance twice: {r}")
# A decided instance runs in no round after the one that decided it: it is
# absent from the last round unless that round decided it.
if rounds and "wild" in verdict and verdict["wild"] == "noisy" and "wild" not in rounds[-1]:
    errors.append(f"wild (still open until the end) is missing from the last round {rounds[-1]}")
last_steady = max((k for k, r in enumerate(rounds) if "steady" in r), default=-1)
if last_steady == len(rounds) - 1 and len(rounds) > 3:
    errors.append("steady, untouched at its first look, ran in every round")
if errors:
    print("\n".join(errors))
    print("BASE runs:", base)
    print(open(f"{d}/ab.err").read())
    sys.exit(1)
print(f"ok: {len(base)} runs a side, rounds {[len(r) for r in rounds]}, verdicts {verdict}")
PY

run AB_FAKE_SLOW=10
python3 -c "
import json, sys
v = {i['name']: i['verdict'] for i in json.load(open(sys.argv[1]))['instances']}
sys.exit(0 if v.get('steady') == 'regressed' else 'steady (10x slower HEAD) is %s' % v.get('steady'))
" "$tmp/ab.json" || fail "a 10x slower HEAD under --pair-by instance"

# auto_check cut|stay N ENV...: ab with the default pairing over the
# stand-in with N instances, and what its BASE runs selected, one word
# each: "all" (the first run), an instance's name (--exact) or "open"
# (--exact-file or --filter: every open instance).
pair_args=()
auto_check() {
  local want=$1 n=$2
  shift 2
  run AB_FAKE_MANY=$((n - 2)) "$@"
  python3 - "$tmp" "$want" "$n" <<'PY'
import json, sys
d, want_cut, n = sys.argv[1], sys.argv[2] == "cut", int(sys.argv[3])
kinds = []
for line in open(f"{d}/base.args"):
    a = line.split()
    kinds.append(a[a.index("--exact") + 1] if "--exact" in a else
                 "open" if "--exact-file" in a or "--filter" in a else "all")
doc = json.load(open(f"{d}/ab.json"))
errors = []
if doc.get("pair_by") != "auto":
    errors.append(f"pair_by {doc.get('pair_by')!r}, not 'auto' (the default)")
if kinds[:1] != ["all"]:
    errors.append(f"the first run is {kinds[:1]}, not every instance")
single = [k for k in kinds[1:] if k not in ("all", "open")]
if want_cut:
    # Pair 2 by instance, cut; pair 3 by run, of every instance (none is
    # decided before its third run). A later pair by run of the one
    # instance still open names it with --exact.
    first_open = kinds.index("open") if "open" in kinds else None
    single = kinds[1:first_open] if first_open else []
    if first_open is None or len(set(single)) != len(single) or "all" in single:
        errors.append(f"not instance pairs then pairs by run: {kinds}")
    elif not 1 <= len(single) < n:
        errors.append(f"{len(single)} instance pairs before the cut, want 1 to {n - 1}: {kinds}")
    if doc.get("pairs_by_run_from") != 3:
        errors.append(f"pairs_by_run_from {doc.get('pairs_by_run_from')!r}, want 3")
    note = doc.get("pairing_note") or ""
    if not note.startswith("pairs by run from pair 3: pair 2, by instance, had taken ") or \
            f"of its {n} instances, over 2x the first pair's" not in note:
        errors.append(f"pairing_note {note!r}")
else:
    if any(k in ("all", "open") for k in kinds[1:]):
        errors.append(f"a pair by run after the first: {kinds}")
    if len(single) < n or len(set(single[:n])) != n:
        errors.append(f"the second pair's round is not every instance once: {kinds}")
    if doc.get("pairs_by_run_from") is not None or doc.get("pairing_note") is not None:
        errors.append(f"pairs_by_run_from {doc.get('pairs_by_run_from')!r}, "
                      f"pairing_note {doc.get('pairing_note')!r}: want null")
v = {i["name"]: i["verdict"] for i in doc["instances"]}
if v.get("steady") != "untouched":
    errors.append(f"steady is {v.get('steady')}, not untouched")
if errors:
    print("\n".join(errors))
    print(open(f"{d}/ab.err").read())
    sys.exit(1)
print(f"ok ({'cut' if want_cut else 'by instance'}): BASE runs {kinds}")
PY
}
auto_check cut 8 AB_FAKE_START=0.4 || fail "--pair-by auto with a slow start-up"
auto_check stay 4 AB_FAKE_EACH=0.25 || fail "--pair-by auto with slow instances"
exit $((fails > 0))
