#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CPU simulation under the real callgrind, as the CodSpeed runner runs it
# (valgrind --tool=callgrind --instr-atstart=no): there must be one
# "Metadata: ompbench <version>" dump and one dump named by each instance's
# URI, thread variants included, each with instructions counted inside its
# window; `ompbench collect --mode simulation` must agree, also for a
# command that runs two benchmark processes (one Metadata dump each). Any
# valgrind tool means simulation, said once on stderr; OMPB_SIMULATION=0
# measures normally instead. Sanitizer builds cannot run under valgrind:
# the test is skipped there (exit 77).
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
bin="$build/benches/examples"
if [ -n "${OMPB_SANITIZE_FLAGS:-}" ] || grep -q '^OMPB_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  echo "SKIP: valgrind cannot run AddressSanitizer binaries"; exit 77
fi
command -v valgrind > /dev/null || { echo "FAIL: valgrind not installed (tools/install-deps.sh)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
filter='^(count_set_bits\[42\]|fibonacci_iterative\[(5|10)\]|thread_example)'
version=$("$tool" --version | awk '{print $2}')
"$bin" --list --filter "$filter" > "$tmp/names" && [ -s "$tmp/names" ] \
  || { echo "FAIL: --list"; exit 1; }

valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$tmp/cg.%p.out" \
  "$bin" --filter "$filter" > "$tmp/out" 2> "$tmp/err" \
  || { echo "FAIL: the run under callgrind failed:"; cat "$tmp/err"; exit 1; }

notice='ompbench: running under valgrind: CPU simulation mode'
[ "$(grep -c "$notice" "$tmp/err")" -eq 1 ] \
  || { echo "FAIL: the run under callgrind does not say once that it simulates:"; cat "$tmp/err"; fail=1; }

trigger='desc: Trigger: Client Request: '
n_meta=$(cat "$tmp"/cg.* | grep -cxF "${trigger}Metadata: ompbench $version")
[ "$n_meta" -eq 1 ] || { echo "FAIL: $n_meta Metadata dumps for ompbench $version"; fail=1; }
while read -r name; do
  uri="benches/examples.c::$name"
  files=$(grep -lxF "${trigger}${uri}" "$tmp"/cg.* | wc -l)
  if [ "$files" -ne 1 ]; then
    echo "FAIL: $files callgrind dumps named $uri"; fail=1; continue
  fi
  ir=$(grep -lxF "${trigger}${uri}" "$tmp"/cg.* | xargs sed -n 's/^totals: //p')
  [ "${ir:-0}" -gt 0 ] || { echo "FAIL: $uri: no instructions counted ($ir)"; fail=1; }
done < "$tmp/names"
dumps=$(cat "$tmp"/cg.* | grep -c "^${trigger}")
want=$(( $(wc -l < "$tmp/names") + 1 ))
[ "$dumps" -eq "$want" ] || { echo "FAIL: $dumps client-request dumps, want $want"; fail=1; }

"$tool" collect --mode simulation --json "$tmp/c.json" -- "$bin" --filter "$filter" \
  > "$tmp/collect" 2>&1 || { echo "FAIL: collect --mode simulation:"; cat "$tmp/collect"; fail=1; }
python3 - "$tmp/c.json" "$tmp/names" "$version" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
names = ["benches/examples.c::" + l.strip() for l in open(sys.argv[2]) if l.strip()]
dumps = [d["name"] for d in c["dumps"]]
want = ["Metadata: ompbench " + sys.argv[3]] + names
if sorted(dumps) != sorted(want) or not c["ok"]:
    sys.exit("FAIL: collect saw dumps %r, want %r" % (dumps, want))
PY

# Two benchmark processes in one command: one Metadata dump per process.
"$tool" collect --mode simulation --json "$tmp/two.json" -- sh -c \
  "\"$bin\" --filter '^count_set_bits\\[42\\]\$' && \"$bin\" --filter '^fibonacci_iterative\\[5\\]\$'" \
  > "$tmp/two" 2>&1 || { echo "FAIL: collect --mode simulation of two processes:"; cat "$tmp/two"; fail=1; }
python3 - "$tmp/two.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
meta = [d["pid"] for d in c["dumps"] if d["name"].startswith("Metadata: ")]
if not c["ok"] or len(meta) != 2 or len(set(meta)) != 2:
    sys.exit("FAIL: two processes: ok=%r, Metadata dumps from pids %r" % (c["ok"], meta))
PY

# Any tool, not only callgrind, means simulation (1 round of 1 iteration);
# OMPB_SIMULATION=0 runs the configured rounds.
opts=(--filter '^count_set_bits\[42\]$' --sample-count 3 --sample-size 2 --warmup-time 1ms
      --format json)
valgrind --tool=none --quiet "$bin" "${opts[@]}" --output "$tmp/sim.json" > /dev/null 2> "$tmp/none.err" \
  && env OMPB_SIMULATION=0 valgrind --tool=none --quiet "$bin" "${opts[@]}" --output "$tmp/real.json" \
     > /dev/null 2> "$tmp/real.err" \
  || { echo "FAIL: valgrind --tool=none runs:"; cat "$tmp/none.err" "$tmp/real.err"; fail=1; }
[ "$(grep -c "$notice" "$tmp/none.err")" -eq 1 ] && [ "$(grep -c "$notice" "$tmp/real.err")" -eq 0 ] \
  || { echo "FAIL: simulation notice under --tool=none / with OMPB_SIMULATION=0:"; cat "$tmp/none.err" "$tmp/real.err"; fail=1; }
python3 - "$tmp/sim.json" "$tmp/real.json" <<'PY' || fail=1
import json, sys
def shape(path):
    runs = [b for b in json.load(open(path))["benchmarks"] if b.get("run_type") == "iteration"]
    return [(b["ompbench"]["rounds"], b["ompbench"]["sample_size"]) for b in runs]
sim, real = shape(sys.argv[1]), shape(sys.argv[2])
if sim != [(1, 1)] or real != [(3, 2)]:
    sys.exit("FAIL: (rounds, sample size) simulated %r, with OMPB_SIMULATION=0 %r" % (sim, real))
PY
exit $fail
