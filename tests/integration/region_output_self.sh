#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# OMPB_REGIONS_OUTPUT naming the running program (issue 30, item 4, defect
# 1): the binary, a symbolic link to it or a hard link of it is never
# written over. The application runs, warns once (one line naming the
# variable and the file) and writes its report on standard error instead;
# the binary is byte-identical afterwards. A benchmark binary refuses the
# same setting with exit status 2.
# Usage: region_output_self.sh BUILD_DIR SOURCE_DIR
script_bound=120
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/region_app
[ -x "$app" ] || { echo "region_output_self: no $app; skipped"; exit 77; }
cp "$app" "$tmp/app"
cp "$app" "$tmp/orig"
ln -s app "$tmp/link"
ln "$tmp/app" "$tmp/hard"

for target in "$tmp/app" "$tmp/link" "$tmp/hard"; do
  OMPB_REGIONS_OUTPUT=$target timeout $((60 * mult)) "$tmp/app" first-use > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "$target: exit status $rc, want 0"
  cmp -s "$tmp/app" "$tmp/orig" || { fail "$target: the running program was replaced"; cp "$tmp/orig" "$tmp/app"; }
  [ "$(grep -c 'OMPB_REGIONS_OUTPUT' "$tmp/err")" -eq 1 ] ||
    fail "$target: want one warning naming OMPB_REGIONS_OUTPUT: $(cat "$tmp/err")"
  grep -q "running program.*standard error" "$tmp/err" ||
    fail "$target: the warning does not say where the report goes: $(cat "$tmp/err")"
  grep -q "setup" "$tmp/err" || fail "$target: no report on standard error: $(cat "$tmp/err")"
  ls "$tmp" | grep -q '\.tmp' && fail "$target: a temporary file is left"
done

# A benchmark binary refuses it (as other bad settings: the line naming
# the value, exit 2), and its file stays.
bench=$build/benches/examples
if [ -x "$bench" ]; then
  cp "$bench" "$tmp/bench"
  cp "$bench" "$tmp/bench.orig"
  OMPB_REGIONS_OUTPUT=$tmp/bench timeout $((60 * mult)) "$tmp/bench" --list > /dev/null 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "benchmark binary: exit status $rc, want 2"
  grep -qF "$tmp/bench: OMPB_REGIONS_OUTPUT: '$tmp/bench' is the same file as the running program" \
    "$tmp/err" || fail "benchmark binary: no refusal naming the value: $(cat "$tmp/err")"
  cmp -s "$tmp/bench" "$tmp/bench.orig" || fail "benchmark binary: it was replaced"
fi
[ "$fails" -eq 0 ] && echo "region_output_self: ok"
exit $((fails > 0))
