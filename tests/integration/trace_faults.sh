#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench trace` on programs it cannot trace and on programs that end
# badly (docs/trace.md, "Faults"): one line and exit status 2 for a
# program not found, not executable, statically linked, without OpenMP,
# with libomp under OMP_TOOL=disabled, or with two runtimes (nothing written
# at --output), a libomp program traced; the
# program's own status for exit, _exit (4), SIGKILL (137) and SIGSEGV
# (139), with every completed region instance in the report; a child it
# forks and execs is not traced; a program that ignores SIGTERM is killed
# --kill-after the TERM passed on to it (137), a second TERM kills it at
# once; a user's LD_PRELOAD is chained; under the
# CodSpeed runner stand-in (ompbench collect) one marker pair per instance,
# on libgomp and on libomp.
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
. "$(dirname "$0")/../trace/trace_test.sh"
prog="$progs/trace_faults"

# expect_refusal NAME WORDS -- ARGS: status 2, one line naming WORDS, no file.
expect_refusal() {
  local name=$1 words=$2
  shift 3
  timeout 60 "$tool" trace --output "$tmp/$name.json" -- "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
  local rc=$?
  [ $rc -eq 2 ] || fail "$name: exit status $rc, want 2"
  [ "$(wc -l < "$tmp/$name.err")" -eq 1 ] || fail "$name: want one line, got: $(cat "$tmp/$name.err")"
  grep -q -- "$words" "$tmp/$name.err" || fail "$name: no '$words' in: $(cat "$tmp/$name.err")"
  [ ! -e "$tmp/$name.json" ] || fail "$name: an output file was written"
}

# instances FILE: "NAME INSTANCES" per iteration entry.
instances() {
  python3 -c '
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b["run_type"] == "iteration":
        print(b["name"], b["ompbench"]["region"]["instances"])' "$1"
}

expect_refusal notfound "not found" -- no-such-program-ompbench-trace
printf 'x\n' > "$tmp/plain" && chmod -x "$tmp/plain"
expect_refusal noexec "not executable" -- "$tmp/plain"
expect_refusal noomp "loads no OpenMP runtime" -- /bin/true
printf '#include <omp.h>\n#include <stdio.h>\nint main(void) { int s = 0;\n#pragma omp parallel reduction(+:s)\ns += omp_get_thread_num();\nprintf("%%d\\n", s); return 0; }\n' > "$tmp/p.c"
if timeout 120 ${CC:-cc} -fopenmp -static -o "$tmp/static" "$tmp/p.c" 2> /dev/null; then
  expect_refusal static "statically linked" -- "$tmp/static"
else
  echo "no static libc: the statically linked case is not checked"
fi
if command -v clang > /dev/null && timeout 120 clang -fopenmp=libomp -o "$tmp/libomp" "$tmp/p.c" 2> /dev/null \
   && timeout 120 clang -fopenmp=libomp -o "$tmp/both" "$tmp/p.c" -lgomp 2> /dev/null; then
  # libomp is traced through OMPT, unless OMPT is off.
  timeout 60 "$tool" trace --output "$tmp/libomp.json" -- "$tmp/libomp" > /dev/null 2> "$tmp/libomp.err" \
    || fail "libomp: status $?: $(cat "$tmp/libomp.err")"
  got=$(instances "$tmp/libomp.json" 2> /dev/null)
  [[ $got =~ ^region:main\+0x[0-9a-f]+\[t=[0-9]+\]\ 1$ ]] \
    || fail "libomp: report holds '$got', want one instance of one region named main+OFFSET"
  OMP_TOOL=disabled expect_refusal libomp_off "OMP_TOOL=disabled" -- "$tmp/libomp"
  expect_refusal both "two OpenMP runtimes, libgomp.so.1 and libomp.so.5" -- "$tmp/both"
else
  echo "no clang with libomp: the libomp cases are not checked"
fi

# expect_end MODE STATUS INSTANCES: the program's status, its instances kept.
expect_end() {
  local mode=$1 want=$2 n=$3
  timeout 120 "$tool" trace --output "$tmp/$mode.json" -- "$prog" "$mode" 5 > /dev/null 2> "$tmp/$mode.err"
  local rc=$?
  [ $rc -eq "$want" ] || fail "$mode: exit status $rc, want $want: $(cat "$tmp/$mode.err")"
  local got
  got=$(instances "$tmp/$mode.json" 2> /dev/null)
  [ "$got" = "region:region._omp_fn.0[t=2] $n" ] \
    || fail "$mode: report holds '$got', want region:region._omp_fn.0[t=2] $n"
}
expect_end exit 3 5
expect_end _exit 4 5
expect_end kill 137 5
expect_end segv 139 5
grep -q "ended by signal 9" "$tmp/kill.err" || fail "kill: no line naming the signal"
# The exec'd child (2 regions of its own, same outlined function) is its own
# process: not traced, not in the report (5, not 7).
expect_end fork 0 5

# deaf RUN KILL_AFTER SIGNALS: a program that ignores SIGTERM, sent TERM
# through the command once it is ready (SIGNALS times, 1 s apart): killed,
# 137, a line saying why, its 5 instances kept.
deaf() {
  local name=$1 after=$2 n=$3 ready="$tmp/$1.ready"
  timeout 60 "$tool" trace --kill-after "$after" --output "$tmp/$name.json" \
    -- "$prog" deaf 5 "$ready" > /dev/null 2> "$tmp/$name.err" &
  local pid=$! i
  # timeout's PID; the command is its child.
  for i in $(seq 200); do [ -e "$ready" ] && break; sleep 0.1; done
  [ -e "$ready" ] || fail "$name: the program never got ready"
  local cmd
  cmd=$(pgrep -P "$pid" | head -1)
  for i in $(seq "$n"); do kill -TERM "$cmd"; sleep 1; done
  wait "$pid"
  local rc=$?
  [ $rc -eq 137 ] || fail "$name: exit status $rc, want 137: $(cat "$tmp/$name.err")"
  grep -q "$4" "$tmp/$name.err" || fail "$name: no '$4' in: $(cat "$tmp/$name.err")"
  [ "$(instances "$tmp/$name.json" 2> /dev/null)" = "region:region._omp_fn.0[t=2] 5" ] \
    || fail "$name: the report lost its instances: $(instances "$tmp/$name.json" 2>&1)"
}
deaf deaf_after 1s 1 "had not ended 1 s after the signal"
deaf deaf_twice 50s 2 "a second signal (Terminated): killing"

# A user's LD_PRELOAD stays, after ours.
LD_PRELOAD="$build/tests/trace/libtrace_chain.so" timeout 60 "$tool" trace --output "$tmp/chain.json" \
  -- "$prog" exit 5 > /dev/null 2> "$tmp/chain.err"
grep -q "trace_chain: loaded" "$tmp/chain.err" || fail "chain: the user's preload did not load"
[ "$(instances "$tmp/chain.json" 2> /dev/null)" = "region:region._omp_fn.0[t=2] 5" ] \
  || fail "chain: the trace lost its instances with a user's LD_PRELOAD"

# The runner stand-in: one window, one marker pair per instance.
if timeout 120 "$tool" collect --json "$tmp/c.json" -- "$tool" trace --output "$tmp/r.json" \
     -- "$prog" fork 5 > "$tmp/collect.out" 2>&1; then
  python3 - "$tmp/c.json" <<'PY' || fail "collect: $(cat "$tmp/collect.out")"
import json, sys
c = json.load(open(sys.argv[1]))
w = [(x["uri"].split("::")[-1], len(x["pairs"])) for x in c["windows"]]
assert c["ok"] and w == [("region:region._omp_fn.0[t=2]", 5)], w
PY
else
  fail "collect found violations: $(cat "$tmp/collect.out")"
fi

# The same on libomp (the faults program built by clang): one pair per
# instance through the OMPT events.
if command -v clang > /dev/null \
   && timeout 120 clang -fopenmp=libomp -O1 -o "$tmp/faults_libomp" "$src/tests/trace/faults.c" 2> "$tmp/cc.err"; then
  if timeout 120 "$tool" collect --json "$tmp/c2.json" -- "$tool" trace --output "$tmp/r2.json" \
       -- "$tmp/faults_libomp" fork 5 > "$tmp/collect2.out" 2>&1; then
    python3 - "$tmp/c2.json" <<'PY' || fail "collect on libomp: $(cat "$tmp/collect2.out")"
import json, re, sys
c = json.load(open(sys.argv[1]))
w = [(x["uri"].split("::")[-1], len(x["pairs"])) for x in c["windows"]]
assert c["ok"] and len(w) == 1 and w[0][1] == 5 and re.fullmatch(r"region:.+\[t=2\]", w[0][0]), w
PY
  else
    fail "collect on libomp found violations: $(cat "$tmp/collect2.out")"
  fi
else
  echo "no clang with libomp: the libomp runner case is not checked"
fi
exit $((fails > 0))
