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
[ "$out" = "ompbench ab: --pair-by: invalid value 'suite' (accepted: run, instance)" ] ||
  fail "--pair-by suite: message '$out'"
[ ! -e "$tmp/bad.txt" ] || fail "--pair-by suite: a report was written"

# run ENV...: ab --pair-by instance over the stand-in, its arguments
# logged per side in $tmp/base.args and $tmp/head.args.
run() {
  rm -f "$tmp"/*.n "$tmp"/*.args
  env AB_FAKE_DIR="$tmp" AB_FAKE_MANY=2 "$@" timeout "$limit" "$tool" ab --pair-by instance \
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
exit $((fails > 0))
