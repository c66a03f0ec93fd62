#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A fake CodSpeed runner that holds the default FIFOs while the test suite
# runs (the ctest fixture "foreign_runner", cmake/OmpbenchTestEnv.cmake), so
# that a test which would talk to a runner it did not start is caught: the
# fake runner reads and keeps every byte written to its control FIFO and
# never answers, and `release` fails if any frame arrived.
#
#   foreign_runner.sh hold STATE_DIR      create and hold the FIFOs, return
#   foreign_runner.sh release STATE_DIR   stop it; exit 1 if a frame arrived
#
# The paths are /tmp/runner.ctl.fifo and /tmp/runner.ack.fifo unless
# OMPB_FOREIGN_RUNNER_CTL / OMPB_FOREIGN_RUNNER_ACK say otherwise (the
# self-test, tests/integration/foreign_runner_check.sh, uses private ones).
# A path that exists and is not ours (a real runner, another build's fake
# one) is never touched: `hold` says so and `release` exits 77 (skipped).
# The holder lives at most OMPB_FOREIGN_RUNNER_LIFETIME seconds (default
# 7200), in a session of its own so that ctest does not wait for it, and is
# stopped by its PID.
set -uo pipefail
ctl=${OMPB_FOREIGN_RUNNER_CTL:-/tmp/runner.ctl.fifo}
ack=${OMPB_FOREIGN_RUNNER_ACK:-/tmp/runner.ack.fifo}
lifetime=${OMPB_FOREIGN_RUNNER_LIFETIME:-7200}

usage() {
  echo "usage: $0 hold|release STATE_DIR" >&2
  exit 2
}
[ $# -ge 2 ] || usage
mode=$1 state=$2

# The identity of a path: device and inode, empty when it does not exist.
identity() { stat -c '%d:%i' -- "$1" 2> /dev/null; }

# Running, not a zombie (an init that does not reap leaves the holder one).
alive() {
  local s
  [ -n "${1:-}" ] && s=$(ps -o stat= -p "$1" 2> /dev/null) && [[ $s != Z* ]]
}

# Removes the FIFOs we made (same device and inode as recorded), and only
# those.
remove_ours() {
  [ -f "$state/ids" ] || return 0
  local path id
  while read -r path id; do
    [ "$(identity "$path")" = "$id" ] && rm -f -- "$path"
  done < "$state/ids"
}

# A leftover of an earlier run of ours (its holder gone, the FIFOs still
# ours) is cleared; anything else at the paths belongs to someone else.
clear_stale() {
  [ -f "$state/ids" ] || return 0
  alive "$(cat "$state/pid" 2> /dev/null)" && return 0
  remove_ours
  rm -f "$state/ids" "$state/pid"
}

hold() {
  mkdir -p "$state" || exit 2
  rm -f "$state/skipped" "$state/frames"
  clear_stale
  local p
  for p in "$ctl" "$ack"; do
    if [ -e "$p" ] || [ -L "$p" ]; then
      echo "$p exists and is not ours (a runner or another test run holds it): not checked" |
        tee "$state/skipped"
      return 0
    fi
  done
  if ! mkfifo -m 600 -- "$ctl"; then
    echo "cannot create $ctl: not checked" | tee "$state/skipped"
    return 0
  fi
  if ! mkfifo -m 600 -- "$ack"; then
    rm -f -- "$ctl"
    echo "cannot create $ack: not checked" | tee "$state/skipped"
    return 0
  fi
  printf '%s %s\n%s %s\n' "$ctl" "$(identity "$ctl")" "$ack" "$(identity "$ack")" > "$state/ids"
  : > "$state/frames"
  rm -f "$state/pid"
  setsid bash "$0" serve "$state" < /dev/null > /dev/null 2>&1 &
  local i
  for ((i = 0; i < 100; i++)); do
    [ -s "$state/pid" ] && break
    sleep 0.05
  done
  if ! alive "$(cat "$state/pid" 2> /dev/null)"; then
    echo "FAIL: the fake runner did not start" >&2
    remove_ours
    exit 1
  fi
  echo "fake runner $(cat "$state/pid") holds $ctl and $ack for at most $lifetime s"
}

# The holder: both FIFOs open read-write (as a runner opens them), every
# byte of the control FIFO appended to the frames file, nothing answered.
# exec keeps the PID written, so `release` stops `timeout` and with it cat.
serve() {
  echo $$ > "$state/pid"
  exec 3<> "$ctl" 4<> "$ack"
  exec timeout "$lifetime" cat <&3 >> "$state/frames"
}

# What arrived, as frames: command tags, and the URI or pid they carry.
describe_frames() {
  command -v python3 > /dev/null || { od -A d -t x1 "$state/frames" | head -20; return; }
  python3 - "$state/frames" <<'PY'
import struct, sys
names = {0: "CurrentBenchmark", 1: "StartBenchmark", 2: "StopBenchmark", 4: "PingPerf",
         5: "SetIntegration", 7: "AddMarker", 8: "SetVersion", 9: "GetIntegrationMode"}
data, i = open(sys.argv[1], "rb").read(), 0
while i + 8 <= len(data) and i < 1 << 16:
    n, tag = struct.unpack_from("<II", data, i)
    extra = ""
    if tag in (0, 7) and n >= 8:
        extra = " pid %d" % struct.unpack_from("<i", data, i + 8)
    if tag == 0 and n >= 16:
        ln = struct.unpack_from("<Q", data, i + 12)[0]
        extra += " uri %r" % data[i + 20:i + 20 + min(ln, 200)].decode("utf-8", "replace")
    print("  %s (tag %d, %d bytes)%s" % (names.get(tag, "?"), tag, n, extra))
    i += 4 + n
PY
}

release() {
  if [ -f "$state/skipped" ]; then
    echo "skipped: $(cat "$state/skipped")"
    exit 77
  fi
  [ -f "$state/ids" ] || { echo "FAIL: no fake runner was started (no $state/ids)"; exit 1; }
  local pid status=0 i
  pid=$(cat "$state/pid" 2> /dev/null)
  if alive "$pid"; then
    kill "$pid"
    i=0
    while alive "$pid" && [ $i -lt 100 ]; do
      sleep 0.05
      i=$((i + 1))
    done
  else
    echo "FAIL: the fake runner ended before the suite did (lifetime $lifetime s," \
      "OMPB_FOREIGN_RUNNER_LIFETIME)"
    status=1
  fi
  remove_ours
  rm -f "$state/ids" "$state/pid"
  local bytes
  bytes=$(stat -c %s "$state/frames" 2> /dev/null || echo 0)
  if [ "$bytes" -gt 0 ]; then
    echo "FAIL: $bytes bytes reached the fake runner at $ctl: a test talked to a runner" \
      "it did not start (or, on a shared machine, another user's process did):"
    describe_frames
    status=1
  elif [ $status -eq 0 ]; then
    echo "no frame reached the fake runner at $ctl"
  fi
  exit $status
}

case $mode in
  hold) hold ;;
  release) release ;;
  serve) serve ;;
  *) usage ;;
esac
