#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The steady state of region markers makes no system call: after a warm-up
# (a thread's first use of a name allocates), two threads run a million
# begin/end pairs each between two marker lines that the bench writes to
# stderr, and strace -f sees no system call of any thread between them.
# (The bench meets at a spinning barrier: libgomp's barrier makes a futex
# call each time.) Skipped without strace or ptrace permission.
set -uo pipefail
build=$1
bin="$build/benches/region_overhead"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
command -v strace > /dev/null || { echo "SKIP: strace not installed"; exit 77; }
strace -f -o /dev/null true 2> /dev/null || { echo "SKIP: ptrace not permitted"; exit 77; }

# LeakSanitizer cannot run under ptrace (sanitizer builds).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
OMP_WAIT_POLICY=active timeout 300 strace -f -o "$tmp/trace" "$bin" --steady 1000000 \
  > "$tmp/out" 2> "$tmp/err" || { echo "FAIL: $bin --steady under strace:"; cat "$tmp/out" "$tmp/err"; exit 1; }
grep -q 'steady phase be' "$tmp/trace" && grep -q 'steady phase en' "$tmp/trace" \
  || { echo "FAIL: the steady-phase marks are not in the trace"; exit 1; }
# Lines strictly between the two marks (strace prints the mark's string
# cut at 32 characters).
inside=$(awk '/steady phase be/ { on = 1; next } /steady phase en/ { on = 0 } on' "$tmp/trace")
if [ -n "$inside" ]; then
  echo "FAIL: system calls during the steady phase (2 threads x 1000000 begin/end pairs):"
  awk '{ print $2 }' <<< "$inside" | cut -d'(' -f1 | sort | uniq -c
  head -20 <<< "$inside"
  exit 1
fi
echo "region_syscalls: no system call in 2 x 1000000 begin/end pairs"
