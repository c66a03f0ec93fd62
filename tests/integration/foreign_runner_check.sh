#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fake runner of the ctest fixture "foreign_runner" (tests/foreign_runner.sh),
# on private paths: a suite that sent nothing passes; one frame makes the
# release fail and name the frame; paths that exist and are not ours are
# left alone and the check is skipped (77); a leftover of our own earlier
# run (holder gone, FIFOs ours) is cleared; the holder is gone afterwards.
set -uo pipefail
src=$2
script="$src/tests/foreign_runner.sh"
tmp=$(mktemp -d)
trap 'pid=$(cat "$tmp/st/pid" 2> /dev/null); [ -n "$pid" ] && kill "$pid" 2> /dev/null; rm -rf "$tmp"' EXIT
export OMPB_FOREIGN_RUNNER_CTL="$tmp/ctl.fifo" OMPB_FOREIGN_RUNNER_ACK="$tmp/ack.fifo"
export OMPB_FOREIGN_RUNNER_LIFETIME=$(( 60 * ${OMPB_TEST_TIMEOUT_MULTIPLIER:-1} ))
fail=0
fr() { timeout 30 bash "$script" "$1" "$tmp/st" > "$tmp/out" 2>&1; }
gone() { ! ps -o stat= -p "$1" 2> /dev/null | grep -qv '^Z'; }

# 1. Nothing sent: release passes, the FIFOs and the holder are gone.
fr hold || { echo "FAIL: hold: exit $?"; cat "$tmp/out"; exit 1; }
[ -p "$tmp/ctl.fifo" ] && [ -p "$tmp/ack.fifo" ] || { echo "FAIL: hold made no FIFOs"; fail=1; }
pid=$(cat "$tmp/st/pid")
fr release; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: quiet release: exit $rc"; cat "$tmp/out"; fail=1; }
[ ! -e "$tmp/ctl.fifo" ] && [ ! -e "$tmp/ack.fifo" ] || { echo "FAIL: FIFOs left"; fail=1; }
gone "$pid" || { echo "FAIL: holder $pid still runs"; fail=1; }

# 2. One CurrentBenchmark frame: release fails and names it.
fr hold || { echo "FAIL: hold 2: exit $?"; cat "$tmp/out"; exit 1; }
python3 - "$tmp/ctl.fifo" <<'PY'
import os, struct, sys
uri = b"tests::talked[1]"
payload = struct.pack("<Ii", 0, 4242) + struct.pack("<Q", len(uri)) + uri
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_NONBLOCK)
os.write(fd, struct.pack("<I", len(payload)) + payload)
PY
sleep 0.2
fr release; rc=$?
if [ $rc -ne 1 ] || ! grep -q "CurrentBenchmark.*tests::talked\[1\]" "$tmp/out"; then
  echo "FAIL: a frame arrived, release: exit $rc (want 1 naming the frame):"; cat "$tmp/out"; fail=1
fi

# 3. Someone else's file at the path: untouched, skipped.
echo theirs > "$tmp/ctl.fifo"
fr hold; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: hold beside a foreign path: exit $rc"; cat "$tmp/out"; fail=1; }
fr release; rc=$?
[ $rc -eq 77 ] && grep -q "is not ours" "$tmp/out" ||
  { echo "FAIL: foreign path: release exit $rc (want 77):"; cat "$tmp/out"; fail=1; }
[ "$(cat "$tmp/ctl.fifo")" = theirs ] || { echo "FAIL: the foreign file was changed"; fail=1; }
[ ! -e "$tmp/ack.fifo" ] || { echo "FAIL: made a FIFO beside a foreign one"; fail=1; }
rm -f "$tmp/ctl.fifo"

# 4. Our own leftover (holder killed, FIFOs ours) does not block the next hold.
fr hold && kill "$(cat "$tmp/st/pid")" && sleep 0.2
fr hold && fr release; rc=$?
[ $rc -eq 0 ] || { echo "FAIL: after a leftover of ours: exit $rc"; cat "$tmp/out"; fail=1; }

[ $fail -eq 0 ] && echo "foreign runner fixture: all checks passed"
exit $fail
