#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Several benchmark processes under one runner (`ompbench collect` running a
# shell that starts them together): only one process may talk to the
# runner at a time (lib/hooks/transport.h). The runner stand-in must see no
# violation at all (no stolen acks, no interleaved windows, a results entry
# for every window and none without one); every process completes its local
# report; a process that found the runner taken says so in exactly one
# warning, and nobody prints a misleading one ("no answer", "no longer
# talking"). One long process starts first, five short ones while it runs.
# Usage: collect_processes.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
bin=$build/benches/examples
tool=$build/tools/ompbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export bin tmp

timeout 300 "$tool" collect --json "$tmp/c.json" -- bash -c '
  "$bin" --filter "^count_set_bits\[42\]$" --sample-count 50 --min-time 10ms --max-time 3s \
    --format json --output "$tmp/long.json" 2> "$tmp/long.err" &
  sleep 0.2
  for i in 1 2 3 4 5; do
    "$bin" --filter "^fibonacci_iterative\[5\]$" --test --format json \
      --output "$tmp/short$i.json" 2> "$tmp/short$i.err" &
  done
  status=0
  for job in $(jobs -p); do wait "$job" || status=1; done
  exit $status' > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: collect exit $rc:"; cat "$tmp/out"; exit 1; }

python3 - "$tmp" <<'PY'
import glob, json, os, sys
tmp = sys.argv[1]
c = json.load(open(os.path.join(tmp, "c.json")))
errors = []
if c["violations"] or c["undecodable_frames"]:
    errors.append("runner saw %r (%d undecodable)" % (c["violations"], c["undecodable_frames"]))
taken = talked = 0
for err in sorted(glob.glob(os.path.join(tmp, "*.err"))):
    text = open(err).read()
    name = os.path.basename(err)[:-4]
    local = json.load(open(os.path.join(tmp, name + ".json")))
    runs = [b for b in local["benchmarks"] if b.get("run_type") == "iteration"]
    if not runs or any(b.get("error_occurred") for b in runs):
        errors.append("%s: incomplete local report" % name)
    for bad in ("no answer", "no longer talking", "undecodable", "answered"):
        if bad in text:
            errors.append("%s: misleading warning: %s" % (name, text.strip()))
    n = text.count("another process is already talking to the CodSpeed runner")
    if n > 1:
        errors.append("%s: %d warnings, want one" % (name, n))
    taken += n == 1
    talked += n == 0
uris = [w["uri"] for w in c["windows"]]
if len(uris) != talked:
    errors.append("%d windows %r for %d processes that talked" % (len(uris), uris, talked))
for e in errors:
    print("FAIL:", e)
print("collect_processes: %d processes talked to the runner, %d found it taken" % (talked, taken))
sys.exit(1 if errors else 0)
PY
