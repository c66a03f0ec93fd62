#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CPU simulation under the real callgrind, as the CodSpeed runner runs it
# (valgrind --tool=callgrind --instr-atstart=no): there must be one
# "Metadata: ompbench <version>" dump and one dump named by each instance's
# URI, thread variants included, each with instructions counted inside its
# window; `ompbench collect --mode simulation` must agree. Sanitizer builds
# cannot run under valgrind: the test is skipped there (exit 77).
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
exit $fail
