#!/usr/bin/env bash
# Bad input on a real benchmark binary: one line naming the value, exit 2,
# no output file (not even a partial one), and nothing run.
set -uo pipefail
build=$1
bin="$build/benches/examples"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect_usage_error() {   # expect_usage_error WORD ENV... -- ARGS...
  local word=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$bin" "$@" --output "$tmp/out.json" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  # Count our lines only: libgomp prints its own complaint about a bad
  # OMP_NUM_THREADS before main() runs.
  local lines
  lines=$(grep -c "^$bin: " "$tmp/stderr")
  if [ $rc -ne 2 ] || ! grep -qF -- "$word" "$tmp/stderr" || [ "$lines" -ne 1 ] \
     || [ -e "$tmp/out.json" ] || ls "$tmp" | grep -q '\.tmp\.'; then
    echo "FAIL: $* (env ${envs[*]}): rc=$rc, stderr:"; cat "$tmp/stderr"; fail=1
  fi
}

expect_usage_error "--bogus" X=1 -- --bogus
expect_usage_error "'0'" X=1 -- --threads 0
expect_usage_error "'abc'" X=1 -- --threads abc
expect_usage_error "'-3'" OMP_NUM_THREADS=-3 --
expect_usage_error "'fib('" X=1 -- --filter 'fib('
expect_usage_error "back-reference" X=1 -- --filter '(fib)\1'
# The pattern of issue 14, for which glibc's regcomp grows past 19 GB:
# refused before regcomp runs. The address-space limit keeps a regression
# to a quick failure (not under sanitizers, which reserve more up front).
if [ -z "${OMPB_SANITIZE_FLAGS:-}" ]; then
  (
    ulimit -S -v 2000000
    expect_usage_error "too large to compile" X=1 -- --filter '((((a{1,100}){1,100}){1,100}){1,100})'
    expect_usage_error "too large to compile" X=1 -- --filter '.{0,20000}'
    # Optional atoms inside nested bounds: 1.5 GB and 6+ GB for glibc.
    expect_usage_error "too large to compile" X=1 -- --filter '(((a?){1,20}){1,20}){1,20}'
    expect_usage_error "too large to compile" X=1 -- --filter '((((a?){1,12}){1,12}){1,12}){1,12}'
    exit $fail
  ) || fail=1
fi
expect_usage_error "'zzz_nothing'" X=1 -- --filter zzz_nothing
expect_usage_error "'nope[1]'" X=1 -- --exact 'nope[1]'
expect_usage_error "'yaml'" X=1 -- --format yaml
expect_usage_error "'soon'" X=1 -- --max-time soon
expect_usage_error "--timeout: invalid duration '0s'" X=1 -- --timeout 0s
expect_usage_error "--timeout: invalid duration '5'" X=1 -- --timeout 5
expect_usage_error "'cpus:abc'" X=1 -- --pin cpus:abc
# Issue 14, item 11: what strtol/strtod would have let through.
expect_usage_error "'100'" X=1 -- --max-time 100
expect_usage_error "' 2s'" X=1 -- --warmup-time ' 2s'
expect_usage_error "'+2s'" X=1 -- --max-time +2s
expect_usage_error "'0x10s'" X=1 -- --max-time 0x10s
expect_usage_error "'+2'" X=1 -- --threads +2
expect_usage_error "' 5'" X=1 -- --sample-count ' 5'
expect_usage_error "'4 junk'" OMP_NUM_THREADS='4 junk' --
expect_usage_error "'2,abc'" OMP_NUM_THREADS='2,abc' --
expect_usage_error "OMPB_HOOKS_TIMEOUT_MS: invalid value 'soon'" OMPB_HOOKS_TIMEOUT_MS=soon --
expect_usage_error "OMPB_HOOKS_BUDGET_MS: invalid value '10s'" OMPB_HOOKS_BUDGET_MS=10s --
expect_usage_error "HWLOC_SYNTHETIC: invalid description 'garbage'" HWLOC_SYNTHETIC=garbage --
expect_usage_error "HWLOC_XMLFILE: cannot use '/nonexistent/topo.xml'" HWLOC_XMLFILE=/nonexistent/topo.xml --
expect_usage_error "--output: not used with --list" X=1 -- --list
expect_usage_error "--output: not used with --show-plan" X=1 -- --show-plan
expect_usage_error "--output: not used with --list-counters" X=1 -- --list-counters
expect_usage_error "a number above zero with unit" X=1 -- --max-time 0
if grep -qF "or 0" "$tmp/stderr"; then
  echo "FAIL: --max-time 0 is refused with a text that offers 0:"; cat "$tmp/stderr"; fail=1
fi

# An unwritable output path: refused before anything runs.
"$bin" --filter '^rem$' --output /nonexistent/dir/r.json > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
if [ $rc -ne 2 ] || ! grep -qF "/nonexistent/dir/r.json" "$tmp/stderr"; then
  echo "FAIL: unwritable output: rc=$rc"; cat "$tmp/stderr"; fail=1
fi

# --help and --version succeed; --list prints names only.
"$bin" --help | grep -q -- "--threads LIST" || { echo "FAIL: --help"; fail=1; }
"$bin" --version | grep -qE '^ompbench [0-9]+\.[0-9]+\.[0-9]+$' || { echo "FAIL: --version"; fail=1; }
"$bin" --list --filter '^thread_example' | grep -qx 'thread_example\[t=4\]' || { echo "FAIL: --list"; fail=1; }
[ $fail -eq 0 ] && echo "cli_errors: all bad inputs rejected with exit 2"
exit $fail
