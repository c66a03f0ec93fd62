#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The public hooks API example of docs/protocol.md, compiled as printed and
# run three ways: without a runner (a no-op), under `ompbench collect` (one
# window, one marker pair per round, all checks passing) and with a runner
# pretending CPU simulation without valgrind (dropped with one warning).
set -uo pipefail
build=$1 src=$2
tool="$build/tools/ompbench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

awk '/^```c$/ { inblock = 1; text = ""; next }
     /^```$/ && inblock { inblock = 0; if (text ~ /ompb_hooks_new/) printf "%s", text; next }
     inblock { text = text $0 "\n" }' "$src/docs/protocol.md" > "$tmp/my_loop.c"
grep -q 'ompb_hooks_new' "$tmp/my_loop.c" || { echo "FAIL: no hooks example in docs/protocol.md"; exit 1; }
# The library as built: static archive, or shared object (BUILD_SHARED_LIBS).
if [ -e "$build/libompbench.a" ]; then
  libs="$build/libompbench.a $(pkg-config --libs hwloc jansson) -lm"
else
  libs="-L$build -Wl,-rpath,$build -lompbench"
fi
cc -std=c11 -fopenmp ${OMPB_SANITIZE_FLAGS:-} -Wall -Wextra -Werror -I"$src/include" \
  "$tmp/my_loop.c" $libs -o "$tmp/my_loop" 2> "$tmp/cc.log" \
  || { echo "FAIL: the example does not compile:"; cat "$tmp/cc.log"; exit 1; }

env OMPB_RUNNER_CTL_FIFO="$tmp/none.ctl" OMPB_RUNNER_ACK_FIFO="$tmp/none.ack" \
  "$tmp/my_loop" > "$tmp/alone" 2>&1 && grep -q '^not instrumented' "$tmp/alone" \
  || { echo "FAIL: without a runner:"; cat "$tmp/alone"; fail=1; }

"$tool" collect --json "$tmp/c.json" -- "$tmp/my_loop" > "$tmp/out" 2>&1 \
  || { echo "FAIL: collect:"; cat "$tmp/out"; fail=1; }
grep -q '^instrumented' "$tmp/out" || { echo "FAIL: not instrumented under collect"; fail=1; }
python3 - "$tmp/c.json" <<'PY' || fail=1
import json, sys
c = json.load(open(sys.argv[1]))
w = c["windows"]
ok = (c["ok"] and c["integration"] == {"name": "my-loop", "version": "1.0.0"}
      and len(w) == 1 and w[0]["uri"] == "my_loop.c::work[100000]" and w[0]["rounds"] == 10
      and all(s <= e for s, e in w[0]["pairs"]))
sys.exit(0 if ok else "FAIL: collected %r" % c)
PY

# A runner answering "Simulation" to a process outside valgrind.
mkfifo "$tmp/ctl" "$tmp/ack"
python3 - "$tmp/ctl" "$tmp/ack" <<'PY' &
import os, struct, sys
c, a = os.open(sys.argv[1], os.O_RDWR), os.open(sys.argv[2], os.O_RDWR)
buf = b""
while True:
    buf += os.read(c, 4096)
    while len(buf) >= 8 and len(buf) >= 4 + struct.unpack("<I", buf[:4])[0]:
        size, tag = struct.unpack("<II", buf[:8])
        buf = buf[4 + size:]
        reply = struct.pack("<III", 8, 10, 1) if tag == 9 else struct.pack("<II", 4, 3)
        os.write(a, reply)
PY
peer=$!
env OMPB_RUNNER_CTL_FIFO="$tmp/ctl" OMPB_RUNNER_ACK_FIFO="$tmp/ack" OMPB_HOOKS_TIMEOUT_MS=5000 \
  timeout 120 "$tmp/my_loop" > "$tmp/sim" 2>&1
rc=$?
kill $peer 2>/dev/null; wait $peer 2>/dev/null
[ $rc -eq 0 ] && grep -q '^not instrumented' "$tmp/sim" \
  && [ "$(grep -c 'not running under valgrind' "$tmp/sim")" -eq 1 ] \
  || { echo "FAIL: a runner asking for simulation outside valgrind:"; cat "$tmp/sim"; fail=1; }
exit $fail
