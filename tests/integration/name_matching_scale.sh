#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Name matching in `ompbench compare` and `ompbench scaling` stays about
# linear in the number of names (issue 14, defect 10: a linear search per
# name made 100k names take minutes). Times both commands on generated
# Google Benchmark files of 2 000 and 20 000 names (as benches/names.sh
# makes them) and fails when t(20000) / t(2000) exceeds 30: linear is 10
# (less with the fixed start-up cost), quadratic 100. A ratio within one
# run, never an absolute time; each time is the median of 3 runs, and every
# command is bounded by timeout (scaled by OMPB_TEST_TIMEOUT_MULTIPLIER).
# Usage: name_matching_scale.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tool=$build/tools/ompbench
py=/usr/bin/python3
limit=30
mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
bound=$(( 120 * mult ))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$tool" ] || { echo "FAIL: $tool not built" >&2; exit 1; }

make_file() { # make_file N SCALE PATH: N/2 benchmarks at two thread counts
  "$py" "$src/benches/names_file.py" "$@"
}

# micros CMD...: the median wall time of 3 runs, in microseconds.
micros() {
  local times=() t0 t1
  for _ in 1 2 3; do
    t0=$(date +%s%N)
    timeout "$bound" "$@" > /dev/null || { echo "FAIL: $* (exit $?)" >&2; exit 1; }
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}

declare -A cmp scal
for n in 2000 20000; do
  make_file "$n" 1.00 "$tmp/base_$n.json"
  make_file "$n" 1.03 "$tmp/head_$n.json"
  cmp[$n]=$(micros "$tool" compare --output "$tmp/report.txt" "$tmp/base_$n.json" "$tmp/head_$n.json")
  scal[$n]=$(micros "$tool" scaling --output "$tmp/report.txt" "$tmp/base_$n.json")
  # The reports are complete: one row per name.
  [ "$(grep -c '^bench_' "$tmp/report.txt")" -ge $(( n / 2 )) ] ||
    { echo "FAIL: scaling report of $n names is short" >&2; exit 1; }
done
status=0
for what in compare scaling; do
  declare -n t=$([ $what = compare ] && echo cmp || echo scal)
  lo=$(( t[2000] > 0 ? t[2000] : 1 ))
  ratio=$(awk -v a="${t[20000]}" -v b="$lo" 'BEGIN { printf "%.1f", a / b }')
  echo "$what: 2000 names ${t[2000]} us, 20000 names ${t[20000]} us, ratio $ratio (limit $limit)"
  if awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r > l) }'; then
    echo "FAIL: $what grows faster than linearly with the number of names" >&2
    status=1
  fi
  unset -n t
done
exit $status
