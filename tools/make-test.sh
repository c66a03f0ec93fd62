#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `make test` after `make deps`: the three stages of the Makefile, with the
# work that does not wait on a test run beside the tests that leave cores
# idle. The test stages mostly wait (timeouts, sleeps, signals, MPI and
# browser start-up): a fresh clone's Release ctest used about half of two
# cores. So
#   1. the clang stage (build + fuzz runs) starts at once, at nice 10, in
#      its own session, its output in BUILD-clang.log;
#   2. the Release build runs; then the ASan+UBSan build starts beside the
#      Release ctest, at nice 5, its output in BUILD-asan.log;
#   3. the ASan ctest runs once its build is done, then the clang stage is
#      waited for.
# Every test passes beside two CPU hogs at nice 0 (tools/test-under-load.sh),
# so niced builds beside them change no verdict, only the wall time.
# A failing stage stops the others: each background stage is a session of
# its own, stopped by its PID (kill -- -PID), never by name.
# Usage: make-test.sh MAKE BUILD   (the Makefile passes its variables on)
set -uo pipefail
make=$1 build=$2
shift 2
vars=("$@")           # BUILD=... JOBS=... TEST_JOBS=... CONTRIBUTING_DIR=...
clang_log="$build-clang.log" asan_log="$build-asan.log"
clang_pid="" asan_pid=""

stop_all() {
  for p in $clang_pid $asan_pid; do
    kill -TERM -- "-$p" 2>/dev/null || true
  done
}
trap 'stop_all; exit 130' INT TERM

# Bounded like any stage: CI's limit is 90 min, a stage gets 60.
# What each stage says it took (bash's TIMEFORMAT), so a slow `make test`
# shows where.
stage_time() { echo "make test: stage $1 took %R s wall, %U s user, %S s sys CPU"; }

bg_pid=""
run_bg() { # NICE LOG TARGET...: sets bg_pid to the session leader's PID
  local n=$1 log=$2
  shift 2
  # Not a group leader here (no job control), so setsid execs in place and
  # $! is the new session's leader.
  # With the kernel's autogroups (sched_autogroup_enabled, on in Debian's
  # kernels) a new session is a scheduling group of its own, weighed
  # against the foreground's as an equal whatever its processes' nice
  # values: the group's own nice is what lowers it (sched(7)). So the
  # stage sets it from inside, once setsid has made its group (from here
  # the write could reach this script's group before the child's setsid).
  # Without it the niced clang stage took a whole core from the Release
  # build.
  setsid timeout 3600 nice -n "$n" bash -c \
    '{ echo "$1" > /proc/self/autogroup; } 2>/dev/null; TIMEFORMAT=$2; shift 2; time "$@"' timed \
    "$n" "$(stage_time "$*")" \
    "$make" --no-print-directory "${vars[@]}" "$@" > "$log" 2>&1 < /dev/null &
  bg_pid=$!
}

finish() { # PID LOG NAME: waits for a background stage, shows its log on failure
  local rc=0
  wait "$1" || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "make test: the $3 stage failed (exit $rc); its log, $2:" >&2
    tail -n 200 "$2" >&2
  else
    echo "make test: the $3 stage passed (log: $2)"
    grep -h "^make test: stage" "$2" || true
  fi
  return "$rc"
}

run_fg() { # TARGET: a stage in the foreground
  local TIMEFORMAT
  TIMEFORMAT=$(stage_time "$1")
  time "$make" --no-print-directory "${vars[@]}" "$1"
}
t0=$SECONDS

run_bg 10 "$clang_log" test-clang
clang_pid=$bg_pid
echo "make test: the clang stage runs beside the others, PID $clang_pid, log $clang_log"

if ! run_fg build-release; then
  stop_all; exit 1
fi
run_bg 5 "$asan_log" build-asan
asan_pid=$bg_pid
echo "make test: the ASan build runs beside the Release tests, PID $asan_pid, log $asan_log"

if ! run_fg ctest-release; then
  stop_all; exit 1
fi
if ! finish "$asan_pid" "$asan_log" "ASan build"; then
  asan_pid=""; stop_all; exit 1
fi
asan_pid=""
run_fg ctest-asan || { stop_all; exit 1; }
finish "$clang_pid" "$clang_log" clang || exit 1
echo "make test: passed in $((SECONDS - t0)) s"
