#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Name matching in `ompbench compare` and `ompbench scaling` against the
# number of instance names (docs/performance.md, "Name matching").
# Generates Google Benchmark JSON files of N names (N/2 benchmarks at two
# thread counts; HEAD's times 3% above BASE's), then times
#   ompbench compare BASE HEAD --output FILE     (console report)
#   ompbench scaling BASE --output FILE
# as the median of 3 runs, for N = 10000 and 100000. The bar: 100k names
# in under 2 s, and t(100k) / t(10k) at most 15 (10 is linear; the
# quadratic matching before gave about 90). The ctest
# integration.name_matching_scale checks the same ratio at 2k and 20k names
# (limit 30) in every test run.
# Usage: benches/names.sh [BUILD_DIR] [--test]
#   --test: N = 1000 and 2000 once, checking only that both commands work.
#   NAMES_SIZES="10000 30000" overrides the two sizes (e.g. for an old build).
set -euo pipefail
build=${1:-build}
mode=${2:-}
tool=$build/tools/ompbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$tool" ] || { echo "names.sh: no $tool (build first)" >&2; exit 2; }

make_file() { # make_file N SCALE PATH
  python3 "$(dirname "$0")/names_file.py" "$@"
}

# seconds CMD...: the median wall time of 3 runs (1 with --test).
seconds() {
  local runs=3 times=()
  [ "$mode" = --test ] && runs=1
  for _ in $(seq $runs); do
    local t0 t1
    t0=$(date +%s%N)
    "$@" > /dev/null
    t1=$(date +%s%N)
    times+=($(( (t1 - t0) / 1000 )))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { printf "%.3f", v[int((NR + 1) / 2)] / 1e6 }'
}

sizes=(${NAMES_SIZES:-10000 100000})
[ "$mode" = --test ] && sizes=(1000 2000)
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s  %12s  %12s\n' names "compare (s)" "scaling (s)"
declare -A cmp scal
for n in "${sizes[@]}"; do
  make_file "$n" 1.00 "$tmp/base_$n.json"
  make_file "$n" 1.03 "$tmp/head_$n.json"
  # A file in the temporary directory, never a device: builds from before
  # issue 14 replace an --output device node with a regular file.
  cmp[$n]=$(seconds "$tool" compare --output "$tmp/report.txt" "$tmp/base_$n.json" "$tmp/head_$n.json")
  scal[$n]=$(seconds "$tool" scaling --output "$tmp/report.txt" "$tmp/base_$n.json")
  printf '%8d  %12s  %12s\n' "$n" "${cmp[$n]}" "${scal[$n]}"
done
lo=${sizes[0]} hi=${sizes[1]}
awk -v c0="${cmp[$lo]}" -v c1="${cmp[$hi]}" -v s0="${scal[$lo]}" -v s1="${scal[$hi]}" \
    -v lo="$lo" -v hi="$hi" 'BEGIN {
  printf "ratio t(%d) / t(%d): compare %.1f, scaling %.1f (linear: %.0f)\n",
         hi, lo, c1 / (c0 > 0 ? c0 : 1e-9), s1 / (s0 > 0 ? s0 : 1e-9), hi / lo }'
