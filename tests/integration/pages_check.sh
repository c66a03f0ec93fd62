#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The NUMA page check on this machine (one node or more): a triad whose
# threads write their own shares in .thread_setup and declare them runs
# without a first-touch warning; the same shares declared untouched give the
# warning on stderr and in the JSON context, naming the thread and what to
# do. The wrong-node case needs several nodes: tests/test_pages.c covers it
# with a double on the corpus machines. Skipped (77) where the kernel
# refuses move_pages (seccomp).
set -uo pipefail
build=$1
bin="$build/tests/pages_fixture"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO="$tmp/none" OMPB_RUNNER_ACK_FIFO="$tmp/none"
unset OMP_PLACES OMP_PROC_BIND
limit=$((60 * ${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}))
fail=0
# move_pages with no page: 0 where the kernel allows it (the number is per
# architecture; an unknown one is not probed).
if ! python3 -c 'import ctypes, os, sys
nr = {"x86_64": 279, "aarch64": 239, "ppc64le": 301}.get(os.uname().machine)
sys.exit(nr is not None and ctypes.CDLL(None).syscall(nr, 0, 0, None, None, None, 0) != 0)'; then
  echo "pages_check: move_pages(2) is refused here; skipped"; exit 77
fi
run() {   # run NAME [VAR=VALUE]: the triad at t=1,2, JSON to $tmp/NAME.json
  local name=$1; shift
  env "$@" timeout "$limit" "$bin" --sample-count 3 --sample-size 2 --warmup-time 1ms \
    --max-time 20s --format json --output "$tmp/$name.json" > /dev/null 2> "$tmp/$name.err"
  echo $?
}
rc=$(run right)
if [ "$rc" != 0 ] || grep -q 'first touch' "$tmp/right.err"; then
  echo "FAIL: shares written by their threads: rc=$rc"; cat "$tmp/right.err"; fail=1
fi
rc=$(run untouched OMPB_PAGES_FIXTURE_UNTOUCHED=1)
# Nearly all: an allocator may keep its own data in a share's first page
# (ASan's does).
want="triad\[t=2\]: first touch: (9[0-9]|100)% of thread 0's declared pages are not touched yet"
if [ "$rc" != 0 ] || ! grep -qE "$want" "$tmp/untouched.err"; then
  echo "FAIL: untouched shares: rc=$rc, want a warning matching: $want"; cat "$tmp/untouched.err"; fail=1
fi
python3 - "$tmp/untouched.json" "$want" <<'PY' || fail=1
import json, re, sys
warnings = json.load(open(sys.argv[1]))["context"]["ompbench"]["warnings"]
if not any(re.search(sys.argv[2], w) and "2 of 2 threads" in w for w in warnings):
    sys.exit("FAIL: JSON context warnings %r lack the first-touch warning" % warnings)
PY
[ $fail -eq 0 ] && echo "pages_check: shares in place stay quiet, untouched ones are named"
exit $fail
