#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs a test command several times while CPU hogs compete for the machine,
# and counts how often it passed: the check that no test's time bound or
# figure depends on an idle machine (CONTRIBUTING.md, "Tests under load").
#
#   tools/test-under-load.sh [-n RUNS] [-H HOGS] [-l LOGDIR] [-- COMMAND...]
#
# Defaults: 3 runs, 2 hogs, COMMAND `make test`. Each run gets fresh hogs
# (busy loops) started before it and stopped by their PIDs after it; every
# hog and every run is bounded by `timeout` (OMPB_LOAD_RUN_TIMEOUT seconds,
# default 3600), and an exit or a signal stops the hogs too. Each run's
# output goes to LOGDIR/run-<i>.log (default a fresh temporary directory,
# kept); a ctest summary line and the names of failed tests are echoed.
# Exit status: 0 when every run passed, 1 when one failed, 2 for bad usage.
set -uo pipefail

runs=3
hogs=2
logdir=
bound=${OMPB_LOAD_RUN_TIMEOUT:-3600}
usage() {
  echo "usage: $0 [-n RUNS] [-H HOGS] [-l LOGDIR] [-- COMMAND...]" >&2
  exit 2
}
positive() { # positive NAME VALUE: a whole number >= 1, or exit 2 naming it
  [[ $2 =~ ^[1-9][0-9]{0,5}$ ]] && return
  printf '%s: %s %q is not a whole number from 1 to 999999\n' "$0" "$1" "$2" >&2
  exit 2
}
while getopts "n:H:l:h" opt; do
  case $opt in
    n) positive -n "$OPTARG"; runs=$OPTARG ;;
    H) positive -H "$OPTARG"; hogs=$OPTARG ;;
    l) logdir=$OPTARG ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
positive OMPB_LOAD_RUN_TIMEOUT "$bound"
cmd=("$@")
[ ${#cmd[@]} -gt 0 ] || cmd=(make test)
if [ -z "$logdir" ]; then
  logdir=$(mktemp -d "${TMPDIR:-/tmp}/ompb-load.XXXXXX") || exit 2
elif ! mkdir -p "$logdir"; then
  printf '%s: cannot create the log directory %q\n' "$0" "$logdir" >&2
  exit 2
fi

hog_pids=()
run_pid=
stop_run() {
  [ -n "$run_pid" ] && kill "$run_pid" 2> /dev/null && wait "$run_pid" 2> /dev/null
  run_pid=
}
stop_hogs() {
  local p
  for p in "${hog_pids[@]}"; do
    kill "$p" 2> /dev/null
  done
  for p in "${hog_pids[@]}"; do
    wait "$p" 2> /dev/null
  done
  hog_pids=()
}
# The run is waited for in the background, so that a signal is handled at
# once: it stops the run and the hogs, by their PIDs.
trap 'stop_run; stop_hogs' EXIT
trap 'stop_run; stop_hogs; exit 130' INT
trap 'stop_run; stop_hogs; exit 143' TERM

start_hogs() {
  local i
  for ((i = 0; i < hogs; i++)); do
    timeout "$bound" bash -c 'while :; do :; done' &
    hog_pids+=($!)
  done
}

passed=0
failed=0
for ((r = 1; r <= runs; r++)); do
  log="$logdir/run-$r.log"
  start_hogs
  echo "run $r of $runs: ${cmd[*]} with $hogs CPU hogs (PIDs ${hog_pids[*]}), log $log"
  timeout "$bound" "${cmd[@]}" > "$log" 2>&1 &
  run_pid=$!
  wait "$run_pid"
  rc=$?
  run_pid=
  echo "  load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  stop_hogs
  grep -E 'tests passed, [0-9]+ tests failed out of' "$log" | sed 's/^/  /'
  sed -n '/The following tests FAILED/,/^Errors while running/p' "$log" |
    grep -E '^[[:space:]]+[0-9]+ - ' | sed 's/^[[:space:]]*/  failed: /'
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    echo "  passed"
  else
    failed=$((failed + 1))
    echo "  FAILED (exit $rc$([ "$rc" -eq 124 ] && echo ", beyond $bound s"))"
  fi
done
echo "under load: $passed of $runs runs passed, $failed failed (logs in $logdir)"
[ "$failed" -eq 0 ]
