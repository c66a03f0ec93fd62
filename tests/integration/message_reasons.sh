#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One-line messages that name the reason and the value (issue 30, item 4,
# defect 8): `ompbench report --output /dev/full` says why it cannot write;
# a SLURM_CPUS_PER_TASK that is not a positive integer (abc, -1, 0, 1e9,
# beyond the thread limit) is refused in a Slurm job when it would be the
# default team width (one line naming it, exit 2), a good one is taken;
# and line separators and bidirectional overrides (U+2028, U+2029,
# U+202E) in an echoed value are escaped like control characters.
# Usage: message_reasons.sh BUILD_DIR SOURCE_DIR
script_bound=120
. "$(dirname "$0")/lib.sh" "$@"
tool=$build/tools/ompbench
bench=$build/benches/examples
[ -x "$tool" ] && [ -x "$bench" ] || { echo "message_reasons: no $tool or $bench; skipped"; exit 77; }
run() { timeout $((60 * mult)) "$@"; }

# 1. A full device: the reason.
if [ -w /dev/full ]; then
  run "$tool" report "$src/tests/data/report_golden/single.json" --output /dev/full 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "report --output /dev/full: exit status $rc, want 2"
  [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "/dev/full.*No space left on device" "$tmp/err" ||
    fail "report --output /dev/full: want one line with the reason: $(cat "$tmp/err")"
fi

# 2. SLURM_CPUS_PER_TASK as the default width.
for v in abc -1 0 1e9 99999 ' 2' 2x; do
  env -u OMP_NUM_THREADS SLURM_JOB_ID=7 SLURM_CPUS_PER_TASK="$v" timeout $((60 * mult)) "$bench" --list \
    > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "SLURM_CPUS_PER_TASK='$v': exit status $rc, want 2"
  [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -qF "SLURM_CPUS_PER_TASK: invalid value '$v'" "$tmp/err" ||
    fail "SLURM_CPUS_PER_TASK='$v': want one line naming it: $(cat "$tmp/err")"
done
env -u OMP_NUM_THREADS SLURM_JOB_ID=7 SLURM_CPUS_PER_TASK=2 timeout $((60 * mult)) "$bench" --list > "$tmp/out" 2> "$tmp/err" ||
  fail "SLURM_CPUS_PER_TASK=2: exit status $? ($(cat "$tmp/err"))"
grep -q 't=2\]' "$tmp/out" || fail "SLURM_CPUS_PER_TASK=2: not the default width: $(head -3 "$tmp/out")"
# Set but not used (OMP_NUM_THREADS decides): no refusal.
OMP_NUM_THREADS=1 SLURM_JOB_ID=7 SLURM_CPUS_PER_TASK=abc run "$bench" --list > /dev/null 2> "$tmp/err" ||
  fail "OMP_NUM_THREADS=1 with a bad SLURM_CPUS_PER_TASK: exit status $?"

# 3. U+2028, U+2029 and U+202E in an echoed value.
for cp in 2028 2029 202e; do
  ch=$(printf "\\u$cp")
  run "$bench" --threads "1${ch}2" --list > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "--threads with U+$cp: exit status $rc, want 2"
  python3 - "$tmp/err" "$cp" <<'PY' || fail "U+$cp echoed raw: $(cat "$tmp/err")"
import sys
text = open(sys.argv[1], encoding="utf-8", errors="replace").read()
ch = chr(int(sys.argv[2], 16))
sys.exit(1 if ch in text or text.count("\n") != 1 or "\\xe2\\x80" not in text else 0)
PY
done
[ "$fails" -eq 0 ] && echo "message_reasons: ok"
exit $((fails > 0))
