#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A benchmark started with stdout and stderr closed (>&- 2>&-) under the
# runner stand-in: the runner pipes must not take fds 1 and 2, or the
# console report and the warnings go into the control pipe as frames. With
# --output the run passes every check; with the console report on the
# closed stdout the binary says so and exits 2, and the runner still sees
# only well-formed frames. Usage: collect_closed_stdio.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
bin=$build/benches/examples
tool=$build/tools/ompbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
one='^(count_set_bits\[42\]|fibonacci_iterative\[5\])$'
closed='exec "$@" >&- 2>&-'

timeout 120 "$tool" collect --json "$tmp/a.json" -- sh -c "$closed" sh "$bin" --filter "$one" --test \
  --format json --output "$tmp/r.json" > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: closed stdio with --output: collect exit $rc"; cat "$tmp/out"; fails=1; }

timeout 120 "$tool" collect --json "$tmp/b.json" -- sh -c "$closed" sh "$bin" --filter "$one" --test \
  > "$tmp/out" 2>&1
python3 - "$tmp/a.json" "$tmp/b.json" <<'PY' || { cat "$tmp/out"; fails=1; }
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
errors = []
for name, c in (("--output", a), ("console", b)):
    if c["undecodable_frames"] != 0:
        errors.append("%s: %d undecodable frames" % (name, c["undecodable_frames"]))
    if len([w for w in c["windows"] if w["rounds"] == 1]) != 2:
        errors.append("%s: windows %r" % (name, [(w["uri"], w["rounds"]) for w in c["windows"]]))
if a["violations"]:
    errors.append("--output: violations %r" % a["violations"])
# The console report had nowhere to go: the binary's exit status 2 is the
# one violation.
if b["exit_status"] != 2 or len(b["violations"]) != 1 or "status 2" not in b["violations"][0]:
    errors.append("console: exit %r, violations %r" % (b["exit_status"], b["violations"]))
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
[ $? -eq 0 ] || fails=1
[ $fails -eq 0 ] && echo "collect_closed_stdio: the runner pipes stay off fds 0-2"
[ $fails -eq 0 ]
