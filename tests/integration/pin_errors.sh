#!/usr/bin/env bash
# Bad --pin values: one line naming the value and the accepted policies,
# exit 2, no output file, nothing run. A well-formed cpus:LIST naming a PU
# this process may not use is refused the same way, naming the usable PUs.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect_refused() {   # expect_refused VALUE WORD...
  local value=$1; shift
  "$bin" --test --filter '^count_set_bits\[42' --pin "$value" --format json \
    --output "$tmp/out.json" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$? ok=1
  [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && [ ! -s "$tmp/stdout" ] || ok=0
  grep -qF -- "--pin: invalid value '$value'" "$tmp/stderr" || ok=0
  for word in "$@"; do grep -qF -- "$word" "$tmp/stderr" || ok=0; done
  if [ -e "$tmp/out.json" ] || ls "$tmp" | grep -q '\.tmp'; then ok=0; fi
  if [ $ok -ne 1 ]; then
    echo "FAIL: --pin '$value': rc=$rc, stderr:"; cat "$tmp/stderr"; fail=1
  fi
}

accepted="accepted: compact, spread, none, cpus:LIST (e.g. cpus:0,2,4-7), S<n>:LIST, M<n>:LIST, C<n>:LIST or N:LIST joined with @ (LIKWID domains, e.g. S0:0-7@S1:0-7)"
expect_refused "nearest" "$accepted"
expect_refused "cpus" "$accepted"
expect_refused "cpus:" "a PU number is missing" "$accepted"
expect_refused "cpus:3-1" "range 3-1 is reversed" "$accepted"
expect_refused "cpus:0,0" "PU 0 is listed twice" "$accepted"
expect_refused "cpus:0,,1" "unexpected ','" "$accepted"
expect_refused "cpus:0-" "a PU number is missing" "$accepted"
expect_refused "cpus:x" "unexpected 'x'" "$accepted"
expect_refused "cpus:99999999" "PU number above" "$accepted"
# Well formed, but no process has PU 1048576 in its mask.
expect_refused "cpus:1048576" "PU 1048576 is not usable by this process (usable PUs: "
# LIKWID-style domain expressions: malformed ones name the item, and ones
# this machine cannot satisfy name the domain (host-independent values).
expect_refused "S0:0@" "item '': expected N:, S<n>:, M<n>: or C<n>: before the list"
expect_refused "S0:1,1" "item 'S0:1,1': index 1 is listed twice"
expect_refused "S99999:0" "there is no socket S99999 on this machine"
expect_refused "N:1048575" "index 1048575 is past node N, which has"
[ $fail -eq 0 ] && echo "pin_errors: every bad --pin refused with exit 2"
exit $fail
