#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Slurm for real: a private one-node cluster (Debian slurm-wlm: slurmctld
# and slurmd in the foreground, auth/none, state, spool, logs and PID files
# in a temporary directory, free ports on the loopback; started bounded,
# stopped by PID) and the cases of docs/guide.md, "Running under Slurm":
# 1. srun --cpus-per-task=C of a benchmark binary: the header names the
#    job step and C CPUs per task, the team defaults to C threads, and srun's
#    mask is the set ompbench plans on;
# 2. srun --cpu-bind=cores: plan and binding agree (no warning); with a
#    taskset between srun and the benchmark, the warning says how they differ;
# 3. the guide's sbatch script (taken from the guide itself), which runs the
#    MPI example with srun --mpi=pmix: two ranks, rank 0's JSON.
# C is 2, or 1 on a one-CPU node. Skipped (77) without slurm-wlm
# (tools/install-deps.sh installs it) or when the daemons cannot start here,
# with their logs.
set -uo pipefail
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
bin="$build/benches/examples"
mpibin="$build/benches/examples_mpi"
for cmd in slurmctld slurmd srun sbatch sinfo; do
  command -v "$cmd" > /dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] \
    || { echo "slurm: $cmd not found (Debian package slurm-wlm); skipped"; exit 77; }
done
PATH="$PATH:/usr/sbin"
mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
tmp=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
export OMPB_RUNNER_CTL_FIFO="$tmp/no-ctl" OMPB_RUNNER_ACK_FIFO="$tmp/no-ack"
unset OMP_NUM_THREADS OMP_PLACES OMP_PROC_BIND SLURM_JOB_ID SLURM_CPUS_PER_TASK
fail=0

# ---- the cluster ---------------------------------------------------------
read -r port1 port2 < <(python3 -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname)
node=$(slurmd -C | head -n 1)          # NodeName=host CPUs=... as slurmd sees it
cpus=$(echo "$node" | sed -n 's/.* CPUs=\([0-9]*\).*/\1/p')
[ -n "$cpus" ] || { echo "slurm: slurmd -C says nothing usable: $node; skipped"; exit 77; }
c=$((cpus >= 2 ? 2 : 1))
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/log" "$tmp/work"
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" <<CONF
ClusterName=ompbtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/none
CredType=cred/none
SlurmctldPort=$port1
SlurmdPort=$port2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
InactiveLimit=0
KillWait=5
${node%% RealMemory=*} NodeAddr=127.0.0.1 RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=10 State=UP
CONF
slurmctld -D -f "$SLURM_CONF" > "$tmp/log/ctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" > "$tmp/log/d.out" 2>&1 &
pids+=($!)
up=0
for _ in $(seq $((300 * mult))); do
  [ "$(sinfo -h -o %T 2> /dev/null)" = idle ] && { up=1; break; }
  kill -0 "${pids[0]}" 2> /dev/null && kill -0 "${pids[1]}" 2> /dev/null || break
  sleep 0.1
done
if [ $up -ne 1 ]; then
  echo "slurm: the daemons did not bring the node up within $((30 * mult)) s here; skipped"
  tail -n 20 "$tmp"/log/*
  exit 77
fi

run_srun() {   # run_srun OUT SRUN-ARGS... -- COMMAND...: bounded
  local out=$1; shift
  timeout $((120 * mult)) srun "$@" > "$out" 2>&1
}
bench_args=(--filter '^count_set_bits\[42\]$' --sample-count 3 --sample-size 100
            --warmup-time 1ms --max-time 10s)

# ---- 1. srun --cpus-per-task ----------------------------------------------
run_srun "$tmp/c1" --ntasks=1 --cpus-per-task=$c --cpu-bind=cores "$bin" "${bench_args[@]}" \
  || { echo "FAIL: srun --cpus-per-task=$c:"; cat "$tmp/c1"; fail=1; }
grep -qE "^slurm: +job [0-9]+ step 0, task 0 of 1, $c CPUs? per task \(the default team width\), srun bound the task to PUs [0-9,-]+, the PUs ompbench plans on$" "$tmp/c1" \
  && grep -qE "^pu map: +T=$c:" "$tmp/c1" && grep -qE "^count_set_bits\[42\] +$c " "$tmp/c1" \
  || { echo "FAIL: srun --cpus-per-task=$c: header or team width"; cat "$tmp/c1"; fail=1; }

# ---- 2. --cpu-bind=cores: agreement, then a taskset in between -------------
run_srun "$tmp/c2" --ntasks=1 --cpus-per-task=1 --cpu-bind=cores "$bin" "${bench_args[@]}" \
  || { echo "FAIL: srun --cpu-bind=cores:"; cat "$tmp/c2"; fail=1; }
if grep -q 'Slurm bound' "$tmp/c2" || ! grep -q 'the PUs ompbench plans on$' "$tmp/c2"; then
  echo "FAIL: srun --cpu-bind=cores: plan and binding should agree"; cat "$tmp/c2"; fail=1
fi
if [ "$cpus" -ge 2 ]; then
  run_srun "$tmp/c3" --ntasks=1 --cpus-per-task=1 --cpu-bind=cores \
    taskset -c "0-$((cpus - 1))" "$bin" "${bench_args[@]}" \
    || { echo "FAIL: srun --cpu-bind=cores taskset:"; cat "$tmp/c3"; fail=1; }
  grep -qE "^ompbench: warning: Slurm bound task 0 to PUs [0-9]+ \(srun --cpu-bind\), but this process may use PUs 0-$((cpus - 1)): " "$tmp/c3" \
    || { echo "FAIL: a taskset after srun --cpu-bind=cores: no warning"; cat "$tmp/c3"; fail=1; }
fi

# ---- 3. the guide's batch script, MPI through PMIx --------------------------
if [ ! -x "$mpibin" ]; then
  echo "slurm: $mpibin not built (no MPI): batch case not run"
elif ! srun --mpi=list 2>&1 | grep -w pmix > /dev/null; then
  echo "FAIL: this Slurm has no PMIx plugin (srun --mpi=list), which the guide's script needs"; fail=1
else
  awk '/<!-- tests\/integration\/slurm.sh runs this script -->/ { found = 1; next }
       found && /^```sh$/ { inblock = 1; next }
       inblock && /^```$/ { exit }
       inblock { print }' "$src/docs/guide.md" > "$tmp/work/ompbench.sbatch"
  grep -q '^srun --mpi=pmix' "$tmp/work/ompbench.sbatch" \
    || { echo "FAIL: no sbatch script found in docs/guide.md"; fail=1; }
  mkdir -p "$tmp/work/build/benches" && ln -s "$mpibin" "$tmp/work/build/benches/examples_mpi"
  # The sanitizer build: Open MPI's PMIx components leak from modules they
  # unload before the leak report, whose frames no suppression can name
  # ("<unknown module>"); tests/mpi/ checks our own leaks under MPI.
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # the last one wins
  timeout $((240 * mult)) sbatch --wait --chdir="$tmp/work" --output="$tmp/work/job.out" \
    --export=ALL,OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$tmp/work/ompbench.sbatch" --filter '^stream_triad\[r=2, t=1\]$' --sample-count 3 \
    --max-time 10s > "$tmp/sbatch.out" 2>&1
  rc=$?
  job=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$tmp/sbatch.out")
  if [ $rc -ne 0 ] || [ ! -s "$tmp/work/ompbench-$job.json" ]; then
    echo "FAIL: sbatch (rc=$rc, job ${job:-none}):"; cat "$tmp/sbatch.out" "$tmp/work/job.out"; fail=1
  else
    python3 - "$tmp/work/ompbench-$job.json" <<'PY' || { cat "$tmp/work/job.out"; fail=1; }
import json, sys
r = json.load(open(sys.argv[1]))
runs = [b for b in r["benchmarks"] if b.get("run_type") == "iteration"]
if r["context"]["ranks"] != 2 or [b["name"] for b in runs] != ["stream_triad[r=2, t=1]"]:
    sys.exit("FAIL: batch job: ranks %r, runs %r" % (r["context"]["ranks"], [b["name"] for b in runs]))
PY
  fi
fi
[ $fail -eq 0 ] && echo "slurm: srun --cpus-per-task=$c, --cpu-bind=cores (agreeing and not), the guide's sbatch with --mpi=pmix"
exit $fail
