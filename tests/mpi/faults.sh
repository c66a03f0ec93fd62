#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Faults under mpirun, each bounded: a rank killed mid-run (the other exits
# within 10 s with a message); a rank that hangs (stopped: the launcher sees
# nothing, our deadline, OMPB_MPI_TIMEOUT=2, ends the run within 10 s with a
# message naming the wait); Ctrl-C to mpirun. None leaves an output file.
set -euo pipefail
build=$1 src=$2
source "$src/tests/mpi/common.inc"
fx="$build/tests/mpi_fixture"
# Waits scale with the machine (OMPB_TEST_TIMEOUT_MULTIPLIER).
mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
pids=()
cleanup() {
  # Only processes this script started, by pid (a stopped rank gets SIGCONT).
  for p in "${pids[@]}"; do
    kill -CONT "$p" 2> "$tmp/ignored" || true
    kill -KILL "$p" 2> "$tmp/ignored" || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# Starts a long run in the background; sets launcher, waits for rank N's pid.
start() {
  rm -f "$tmp"/rank*.pid "$tmp"/out.json
  OMP_NUM_THREADS=1 OMPB_FIXTURE_PID_DIR="$tmp" timeout 120 "$MPIRUN" --oversubscribe -np 2 \
    "$fx" --exact 'steady[r=2, t=1]' --sample-count 100000 --warmup-time 0s --max-time 60s \
    --format json --output "$tmp/out.json" > "$tmp/run.out" 2> "$tmp/run.err" &
  launcher=$!
  pids+=("$launcher")
  for _ in $(seq $((200 * mult))); do
    [ -s "$tmp/rank0.pid" ] && [ -s "$tmp/rank1.pid" ] && break
    sleep 0.1
  done
  [ -s "$tmp/rank1.pid" ] || { echo "FAIL: the ranks did not start"; cat "$tmp/run.err"; exit 1; }
  pids+=("$(cat "$tmp/rank0.pid")" "$(cat "$tmp/rank1.pid")")
  sleep 1 # mid-run: rounds are under way
}

# Waits for the launcher at most 10 s (x the multiplier); fails otherwise.
finish_within_10s() {
  local what=$1 t0 t1
  t0=$(date +%s%N)
  for _ in $(seq $((100 * mult))); do
    kill -0 "$launcher" 2> "$tmp/ignored" || break
    sleep 0.1
  done
  if kill -0 "$launcher" 2> "$tmp/ignored"; then
    echo "FAIL: $what: the run still goes on $((10 * mult)) s later"; cat "$tmp/run.err"; exit 1
  fi
  set +e; wait "$launcher"; rc=$?; set -e
  t1=$(date +%s%N)
  [ "$rc" != 0 ] || { echo "FAIL: $what: exit status 0"; exit 1; }
  [ ! -e "$tmp/out.json" ] || { echo "FAIL: $what: an output file was left"; exit 1; }
  if ls -A "$tmp" | grep -q 'out.json.'; then
    echo "FAIL: $what: a temporary output file was left"; ls -A "$tmp"; exit 1
  fi
  echo "$what: the run ended $(( (t1 - t0) / 1000000 )) ms after it (status $rc)"
}

# 1. A rank is killed.
start
kill -KILL "$(cat "$tmp/rank1.pid")"
finish_within_10s "rank 1 killed"
# The launcher sees the signal first and says so, naming the rank (Open
# MPI's mpirun; MPICH's Hydra words it "KILLED BY SIGNAL: 9"); rank 0 is
# ended by it before its own deadline could speak.
grep -Eq 'process rank 1 with PID [0-9]+ on node .* exited on signal 9|KILLED BY SIGNAL: 9' \
  "$tmp/run.err" || { echo "FAIL: no message naming rank 1's signal"; cat "$tmp/run.err"; exit 1; }

# 2. A rank hangs: nothing tells the launcher; the other rank's deadline does.
export OMPB_MPI_TIMEOUT=2
start
kill -STOP "$(cat "$tmp/rank1.pid")"
finish_within_10s "rank 1 stopped"
grep -q 'rank 0: .*no answer from every rank within' "$tmp/run.err" || {
  echo "FAIL: no deadline message"; cat "$tmp/run.err"; exit 1; }
kill -CONT "$(cat "$tmp/rank1.pid")" 2> "$tmp/ignored" || true
unset OMPB_MPI_TIMEOUT

# 3. Ctrl-C to the launcher.
start
kill -INT "$launcher"
finish_within_10s "SIGINT to mpirun"
echo "PASS"
