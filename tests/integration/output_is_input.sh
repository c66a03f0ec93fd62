#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Issue 19, defect 3: a tool asked to write a file that is also one of its
# inputs (by the same name, a symbolic link or a hard link) refuses with
# exit 2 and one line naming both, and the input is left as it was.
# Usage: output_is_input.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1
src=$2
bin=$build/benches/examples
tool=$build/tools/ompbench
data=$src/tests/data/compare
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
fails=0
cp "$data/base.json" "$tmp/a.json"
cp "$data/scaling.json" "$tmp/s.json"
cp "$bin" "$tmp/bench"
ln -s a.json "$tmp/link.json"
ln "$tmp/a.json" "$tmp/hard.json"
ln -s s.json "$tmp/slink.json"
sums() { (cd "$tmp" && md5sum a.json s.json bench); }
before=$(sums)

# refused WANT CMD...: exit 2, one line holding WANT, inputs unchanged.
refused() {
  local want=$1 rc
  shift
  timeout 60 "$@" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -qF -- "$want" "$tmp/err" \
     || [ "$(sums)" != "$before" ]; then
    echo "FAIL: $* (exit $rc, want 2 and one line with '$want'):"; cat "$tmp/err"
    fails=$((fails + 1))
  fi
}

same="is the same file as"
refused "--output: '$tmp/a.json' $same the BASE file '$tmp/a.json'" \
  "$tool" compare --output "$tmp/a.json" "$tmp/a.json" "$tmp/a.json"
refused "--output: '$tmp/link.json' $same the HEAD file" \
  "$tool" compare --output "$tmp/link.json" "$data/head.json" "$tmp/a.json"
refused "--output: '$tmp/hard.json' $same the BASE file" \
  "$tool" compare --base "$tmp/a.json" --head "$data/head.json" --output "$tmp/hard.json"
refused "--output: '$tmp/slink.json' $same the result file" \
  "$tool" scaling --output "$tmp/slink.json" "$tmp/s.json"
refused "--svg: '$tmp/s.json' $same the result file" "$tool" scaling --svg "$tmp/s.json" "$tmp/s.json"
cp "$data/base.json" "$tmp/table.txt"
ln -s table.txt "$tmp/table-link.svg"
refused "--svg: '$tmp/table-link.svg' $same --output" \
  "$tool" scaling --output "$tmp/table.txt" --svg "$tmp/table-link.svg" "$tmp/s.json"
refused "--json: '$tmp/bench' $same the command" \
  "$tool" collect --json "$tmp/bench" -- "$tmp/bench" --test
refused "--output: '$tmp/bench' $same this benchmark binary" "$tmp/bench" --test --output "$tmp/bench"
refused "--output: '$tmp/x.xml' $same --topology-xml" \
  sh -c "'$tmp/bench' --show-plan --topology-xml '$tmp/x.xml' > /dev/null && cp '$tmp/x.xml' '$tmp/keep.xml' && '$tmp/bench' --test --topology-xml '$tmp/x.xml' --output '$tmp/x.xml'"
if [ -e "$tmp/keep.xml" ] && ! cmp -s "$tmp/x.xml" "$tmp/keep.xml"; then
  echo "FAIL: the --topology-xml file was changed"; fails=$((fails + 1))
fi
# Two outputs not written yet, one a dangling link to the other.
ln -s new-table.txt "$tmp/new-link.svg"
refused "--svg: '$tmp/new-link.svg' $same --output" \
  "$tool" scaling --output "$tmp/new-table.txt" --svg "$tmp/new-link.svg" "$tmp/s.json"
[ -e "$tmp/new-table.txt" ] && { echo "FAIL: a refused run wrote its table"; fails=$((fails + 1)); }
# Not an input: written as before.
timeout 60 "$tool" compare --output "$tmp/report.txt" "$tmp/a.json" "$tmp/link.json" > /dev/null \
  || { echo "FAIL: compare into a new file"; fails=$((fails + 1)); }
[ -s "$tmp/report.txt" ] || { echo "FAIL: no report"; fails=$((fails + 1)); }
[ $fails -eq 0 ] && echo "output_is_input: every tool refuses to write over its input"
[ $fails -eq 0 ]
