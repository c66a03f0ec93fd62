#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 19, defect 8: a refused or failed output says the real reason: a
# file of /proc exists but nothing can be created beside it (not "No such
# file or directory" about the file), and a report that does not fit on
# /dev/full says "No space left on device".
# Usage: write_reasons.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
bin=$build/benches/examples
app=$build/tests/region_app
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fails=0

# says STATUS WANT CMD...: exits STATUS and stderr holds WANT.
says() {
  local status=$1 want=$2 rc
  shift 2
  timeout 120 "$@" > /dev/null 2> "$tmp/err"
  rc=$?
  if [ $rc -ne "$status" ] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL: $* (exit $rc, want $status and '$want'):"; cat "$tmp/err"
    fails=$((fails + 1))
  fi
}

# Only root may write the file (mode 0444); anyone else is told that.
why="no temporary file can be created beside it in '/proc/self'"
[ "$(id -u)" = 0 ] || why="Permission denied"
# An application warns and runs on with its regions off; a benchmark
# binary refuses the setting.
says 0 "OMPB_REGIONS_OUTPUT: cannot write '/proc/self/status': $why" \
  env OMPB_REGIONS_OUTPUT=/proc/self/status "$app" first-use
says 2 "OMPB_REGIONS_OUTPUT: cannot write '/proc/self/status': $why" \
  env OMPB_REGIONS_OUTPUT=/proc/self/status "$bin" --test
says 2 "cannot write '/proc/self/status': $why" "$bin" --test --output /proc/self/status
# The JSON of every instance is far beyond stdio's buffer: the write fails
# while the report is written, not only at the final flush.
says 2 "cannot write the report to /dev/full: No space left on device" \
  "$bin" --test --format json --output /dev/full
says 2 "cannot write standard output: No space left on device" \
  sh -c "exec '$bin' --test --format json > /dev/full"
[ $fails -eq 0 ] && echo "write_reasons: every output failure says why"
[ $fails -eq 0 ]
