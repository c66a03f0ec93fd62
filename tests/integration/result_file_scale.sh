#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The tools' costs are linear in the number of instances of a result file
# (issue 30, defect 13). Times `convert`, `compare`, `scaling` and `report`
# on generated files of N and 4N instances, in the same run:
# - ompbench result files (benches/results_file.py, from the entries of
#   tests/data/compare/base.json), N = 1000;
# - Google Benchmark files reported by aggregates only
#   (benches/names_file.py ... aggregates), N = 2000: each run's spread was
#   found by a scan of every entry (compare of 2 500 runs: 10 s, 5 000: 57 s).
# Fails when t(4N) / t(N) exceeds 7 (linear is 4, quadratic 16; the margin
# is for the allocator and the load). Each time is the CPU time (user +
# system) of the command, the least of 3 runs: a ratio within one run,
# never an absolute time; every command is bounded by timeout (then the
# ratio counts as infinite). The page draws at most 2000 instances
# (OMPB__HTML_MAX_DRAWN, docs/guide.md): the page of the 8000 entries of 4N
# ompbench instances says so and is under 3 times the page of N (2000
# entries, all drawn); drawing them all made it 4 times.
# Usage: result_file_scale.sh BUILD_DIR SOURCE_DIR
script_bound=500
. "$(dirname "$0")/lib.sh" "$@"

tool=$build/tools/ompbench
[ -x "$tool" ] || { echo "ompbench not built: skipped"; exit 77; }
limit=7
bound=$((60 * mult))

# cpu CMD...: the least CPU time of 3 runs, in microseconds (0 on failure).
cpu() {
  python3 - "$bound" "$@" <<'PY'
import resource, subprocess, sys
bound, cmd = float(sys.argv[1]), sys.argv[2:]
def used():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime
best = None
for _ in range(3):
    before = used()
    try:
        rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            timeout=bound).returncode
    except subprocess.TimeoutExpired:
        rc = None
    if rc not in (0, 1):   # compare exits 1 on a regression
        print(0)
        sys.exit()
    t = used() - before
    best = t if best is None else min(best, t)
print(max(1, int(best * 1e6)))
PY
}

declare -A t
gen() { # gen KIND N SEED PATH
  case $1 in
    ompb) python3 "$src/benches/results_file.py" "$src/tests/data/compare/base.json" "$2" "$4" \
            --threads 1,2 --seed "$3" ;;
    gb) python3 "$src/benches/names_file.py" "$2" "1.0$3" "$4" aggregates ;;
  esac
}
# The two kinds run side by side (each times its own commands' CPU, so
# neither sees the other's): half the wall time in `make check`, where this
# test is the longest. Each kind's lines go to its log, shown in order.
scale_kind() { # scale_kind KIND: its checks; exit status: its failures
  local kind=$1 n m lo hi ratio rows what
  local tmp=$tmp/$kind
  mkdir -p "$tmp"
  n=$([ $kind = ompb ] && echo 1000 || echo 2000)
  for m in $n $((4 * n)); do
    gen $kind $m 1 "$tmp/base.json" && gen $kind $m 3 "$tmp/head.json" ||
      { fail "$kind: cannot generate $m instances"; continue; }
    t[$kind.convert.$m]=$(cpu "$tool" convert "$tmp/base.json" --format csv --output "$tmp/out.csv")
    t[$kind.compare.$m]=$(cpu "$tool" compare "$tmp/base.json" "$tmp/head.json" --output "$tmp/out.txt")
    t[$kind.scaling.$m]=$(cpu "$tool" scaling "$tmp/base.json" --output "$tmp/out.txt")
    t[$kind.report.$m]=$(cpu "$tool" report "$tmp/base.json" --output "$tmp/out.html")
    t[$kind.page.$m]=$(stat -c %s "$tmp/out.html" 2> /dev/null || echo 0)
    # The outputs are whole: a CSV row per instance (convert renders
    # ompbench files; Google Benchmark ones are compared and plotted).
    rows=$(grep -c '^"big_' "$tmp/out.csv" || true)
    [ $kind = gb ] || [ "$rows" -ge "$m" ] || fail "$kind: convert of $m instances wrote $rows rows"
  done
  if [ $kind = ompb ]; then
    grep -q '<p id="drawn">The first 2000 of the 8000 instances are drawn' "$tmp/out.html" ||
      fail "the page of 8000 entries does not say that it draws the first 2000"
    awk -v a="${t[$kind.page.$((4 * n))]}" -v b="${t[$kind.page.$n]}" 'BEGIN { exit !(b > 0 && a < 3 * b) }' ||
      fail "the page of 4x the instances is ${t[$kind.page.$((4 * n))]} bytes against ${t[$kind.page.$n]}: not capped"
  fi
  for what in convert compare scaling report; do
    lo=${t[$kind.$what.$n]} hi=${t[$kind.$what.$((4 * n))]}
    if [ "$lo" = 0 ] || [ "$hi" = 0 ]; then
      fail "$kind $what: failed or outlived ${bound} s ($n: $lo us, $((4 * n)): $hi us)"
      continue
    fi
    ratio=$(awk -v a="$hi" -v b="$lo" 'BEGIN { printf "%.1f", a / b }')
    echo "$kind $what: $n instances $lo us, $((4 * n)) instances $hi us of CPU, ratio $ratio (limit $limit)"
    awk -v r="$ratio" -v l="$limit" 'BEGIN { exit !(r > l) }' &&
      fail "$kind $what grows faster than linearly with the number of instances"
  done
  [ "$fails" -eq 0 ]
}
pids=()
for kind in ompb gb; do
  scale_kind $kind > "$tmp/$kind.log" 2>&1 &
  pids+=($!)
done
i=0
for kind in ompb gb; do
  wait "${pids[$i]}" || fails=$((fails + 1))
  cat "$tmp/$kind.log"
  i=$((i + 1))
done
[ "$fails" -eq 0 ]
