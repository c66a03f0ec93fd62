#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench ab` reading --list stays about linear in the number of names
# (issue 30, defect 13: a linear search per name for duplicates made
# 40,000 names take 13 s). Both sides "list" N generated names (cat) and
# crash in every run, so that ab's own cost is the listing, the rows, the
# selections (--exact-file) and the report of N rows. Fails when
# t(4N) / t(N) exceeds 6 with N = 10,000: linear is 4 (less with the
# fixed start-up cost), quadratic 16 (11 measured before the fix, with
# the process starts). A ratio within one run, never an absolute time;
# each time is the best of 2 runs, each bounded by timeout (scaled by
# OMPB_TEST_TIMEOUT_MULTIPLIER).
# Usage: ab_list_scale.sh BUILD_DIR SOURCE_DIR
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
tool=$build/tools/ompbench
[ -x "$tool" ] || { echo "no ompbench in this build"; exit 77; }
bound=$((120 * mult))

# micros N: the best wall time of 2 runs of ab over N names, in microseconds.
micros() {
  local n=$1 best= t0 t1 status
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "scale/yyyyyyyyyyyyyyyyyyyyyyyy/%07d\n", i }' \
    > "$tmp/names-$n"
  local cmd="case \" \$* \" in *\" --list \"*) exec cat $tmp/names-$n;; esac; kill -SEGV \$\$"
  for _ in 1 2; do
    t0=$(date +%s%N)
    timeout "$bound" "$tool" ab --format json --base-cmd "$cmd" --head-cmd "$cmd" \
      > "$tmp/out.json" 2> "$tmp/err"
    status=$?
    t1=$(date +%s%N)
    # Every run crashes: nothing compared, exit status 2 (ab_hostile.sh
    # checks it; 0 before issue 30 fixed that, and this measures either).
    [ "$status" = 2 ] || [ "$status" = 0 ] || { fail "ab over $n names: exit status $status ($(tail -1 "$tmp/err"))"; return; }
    local us=$(((t1 - t0) / 1000))
    [ -z "$best" ] || [ "$us" -lt "$best" ] && best=$us
  done
  rows=$(/usr/bin/python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['instances']))" "$tmp/out.json")
  [ "$rows" = "$n" ] || fail "ab over $n names: $rows rows in the report"
  echo "$best"
}

small=$(micros 10000)
large=$(micros 40000)
[ "$fails" = 0 ] || exit 1
echo "ab --list: 10000 names ${small} us, 40000 names ${large} us, ratio $(awk -v a="$small" -v b="$large" 'BEGIN { printf "%.2f", b / a }')"
awk -v a="$small" -v b="$large" 'BEGIN { exit !(b <= 6 * a) }' ||
  fail "ab over 40000 names took more than 6 times as long as over 10000 (${large} us against ${small} us): not linear"
[ "$fails" = 0 ] && echo "ab_list_scale: ok"
exit $((fails > 0))
