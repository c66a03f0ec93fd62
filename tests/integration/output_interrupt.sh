#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A signal while a report is being written (SIGINT, SIGTERM, SIGHUP) leaves
# no temporary file behind, and the target is the old file or a complete
# new one, never a partial one. Deterministic: an LD_PRELOAD shim stops the
# writer (SIGSTOP) inside fsync(2) of its temporary file, that is after the
# report is written and before it is renamed; the script then sends the
# signal from outside, as a user or a batch system would, and continues it.
# Usage: output_interrupt.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"
bin=$build/benches/examples
tool=$build/tools/ompbench
data=$src/tests/data/compare
pid=
at_exit() { [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; }
# Job control: background jobs keep SIGINT at its default (without it, bash
# starts them with SIGINT ignored).
set -m

cat > "$tmp/stop.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fsync of a temporary file whose name contains $OMPB_TEST_STOP_AT: stop
 * the process there, once; then carry on. */
int fsync(int fd)
{
    static int done;
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    const char *want = getenv("OMPB_TEST_STOP_AT");
    char link[64], name[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, name, sizeof name - 1);
    if (!done && want && n > 0) {
        name[n] = '\0';
        if (strstr(name, want) && strstr(name, ".tmp.")) {
            done = 1;
            raise(SIGSTOP);
        }
    }
    return real(fd);
}
EOF
cc -shared -fPIC -o "$tmp/stop.so" "$tmp/stop.c" -ldl || { echo "output_interrupt: no C compiler; skipped"; exit 77; }
# The ASan build's runtime must come first; the shim only wraps fsync.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# A report of many rounds, as JSON: 18 example instances of 200 rounds
# each (0.66 MB). The shim makes the timing deterministic, so the size
# matters to no check; the whole suite (55 instances, the oversubscribed
# t=4 ones among them) took 3.3 s of CPU a run for nothing more.
few=(--filter '^(count_set_bits|fibonacci)')
"$bin" "${few[@]}" --sample-count 200 --sample-size 1 --warmup-time 0ns --max-time 5ms --format json \
  --output "$tmp/big.json" > /dev/null 2>&1 || { echo "FAIL: making the big report"; exit 1; }

# state PID: the process state letter (T when stopped).
state() { awk '{print $3}' "/proc/$1/stat" 2>/dev/null; }

# interrupt NAME SIGNAL TARGET CMD...: runs CMD with the shim, waits until
# it stops with its temporary file written, sends SIGNAL, continues it; its
# exit status goes to $rc.
interrupt() {
  rc=
  local name=$1 sig=$2 target=$3
  shift 3
  echo old > "$target"
  OMPB_TEST_STOP_AT="$(basename "$target")" LD_PRELOAD="$tmp/stop.so" "$@" > /dev/null 2> "$tmp/err" &
  pid=$!
  local i
  for i in $(seq 600); do [ "$(state $pid)" = T ] && break; sleep 0.05; done
  if [ "$(state $pid)" != T ]; then
    fail "$name $sig: the writer never reached fsync"; cat "$tmp/err"
    kill -9 "$pid"; wait "$pid"; pid=; return
  fi
  ls "$(dirname "$target")" | grep -q '\.tmp\.' || fail "$name $sig: no temporary file while writing"
  kill -s "$sig" "$pid"
  kill -s CONT "$pid"
  for i in $(seq 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null && fail "$name $sig: still running 30 s after the signal"
  wait "$pid" 2>/dev/null
  rc=$?
  pid=
  ls "$(dirname "$target")" | grep '\.tmp\.' && fail "$name $sig: temporary file left behind"
  if ! grep -qx old "$target" && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$target" 2>/dev/null \
     && [ "${target##*.}" = json ]; then
    fail "$name $sig: the target is neither the old file nor a complete report"
  fi
}

for sig in INT TERM HUP; do
  n=$(kill -l "$sig")
  d=$tmp/$sig
  mkdir "$d"
  interrupt bench "$sig" "$d/bench.json" "$bin" "${few[@]}" --sample-count 200 --sample-size 1 \
       --warmup-time 0ns --max-time 5ms --format json --output "$d/bench.json"
  [ "$rc" = $((128 + n)) ] || fail "bench $sig: exit status '$rc', expected $((128 + n)) (killed by the signal)"
  interrupt compare "$sig" "$d/cmp.json" "$tool" compare --format json --output "$d/cmp.json" \
       "$tmp/big.json" "$tmp/big.json"
  [ "$rc" = $((128 + n)) ] || fail "compare $sig: exit status '$rc', expected $((128 + n))"
  interrupt scaling "$sig" "$d/scal.svg" "$tool" scaling --svg "$d/scal.svg" "$data/scaling.json"
  [ "$rc" = $((128 + n)) ] || fail "scaling $sig: exit status '$rc', expected $((128 + n))"
  # collect handles SIGINT and SIGTERM itself to reap its command and
  # report: it finishes its file. SIGHUP ends it like the others.
  interrupt collect "$sig" "$d/col.json" "$tool" collect --json "$d/col.json" -- "$bin" \
       --filter '^count_set_bits\[42\]$' --test
  [ -n "$rc" ] || fail "collect $sig: no exit status"
done
[ $fails -eq 0 ] && echo "output_interrupt: no temporary file left by SIGINT, SIGTERM or SIGHUP"
[ $fails -eq 0 ]
