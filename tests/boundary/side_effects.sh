#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Side effects only where asked for (issue 20, item 5): an application that
# links the shared libompbench only for region markers (regions_only.c)
# - defines no OpenMP runtime entry point (GOMP_*, __kmpc_*), nor does the
#   library: its forks go to its runtime, not through the fork guard, which
#   only benchmark binaries carry (ompbench::main, ompbench::fork_guard);
# - loads a library without the STATIC_TLS flag (a library with it may fail
#   to dlopen once the static TLS space is used up);
# - with a bad OMPB_REGIONS_FORMAT warns once, naming the value and what is
#   accepted, and runs to completion with status 0 (regions off): no
#   constructor ends the process.
# The main() library of benchmark binaries, for contrast, does carry the
# guard's entry points (static or shared, as built).
# Usage: side_effects.sh NM READELF APP LIBRARY.so MAIN_LIBRARY
set -uo pipefail
export LC_ALL=C
nm=$1 readelf=$2 app=$3 lib=$4 main_lib=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
runtime_defs() { # FILE: the runtime entry points FILE defines (any table)
  { "$nm" --defined-only "$1" 2> /dev/null; "$nm" -D --defined-only "$1" 2> /dev/null; } \
    | awk 'NF >= 3 && $3 ~ /^(GOMP_|__kmpc_)/ { print $3 }' | sort -u
}

for f in "$app" "$lib"; do
  defs=$(runtime_defs "$f")
  [ -z "$defs" ] || bad "$(basename "$f") defines OpenMP runtime entry points: $(echo $defs)"
done
# The check above must be able to fail: libompbench_main has them.
[ -n "$(runtime_defs "$main_lib")" ] || bad "$(basename "$main_lib") has no fork guard entry point"
# The application really uses the shared library it was checked against.
"$readelf" -d "$app" | grep "NEEDED.*\[$(basename "$lib" | sed 's/\.so.*/.so/')" > /dev/null \
  || bad "$(basename "$app") does not load $(basename "$lib")"
"$readelf" -d "$lib" | grep -E '\(FLAGS\)' | grep -q STATIC_TLS \
  && bad "$(basename "$lib") has the STATIC_TLS flag"

unset OMPB_REGIONS OMPB_REGIONS_OUTPUT
OMPB_REGIONS_FORMAT=bogus timeout 60 "$app" > "$tmp/out" 2> "$tmp/err"
st=$?
[ "$st" = 0 ] || bad "OMPB_REGIONS_FORMAT=bogus: exit status $st, want 0"
grep -qx done "$tmp/out" || bad "OMPB_REGIONS_FORMAT=bogus: the program did not run to its end"
want="ompbench: warning: OMPB_REGIONS_FORMAT: invalid value 'bogus' (accepted: console, json, csv)"
[ "$(grep -cF "$want" "$tmp/err")" = 1 ] || { bad "no one warning '$want':"; cat "$tmp/err"; }
# Regions are off: nothing reported at exit.
[ "$(wc -l < "$tmp/err")" = 1 ] || { bad "more than the warning on stderr:"; cat "$tmp/err"; }
# And with good settings the markers work: a report at exit.
OMPB_REGIONS_OUTPUT="$tmp/r.json" timeout 60 "$app" > "$tmp/out" 2> "$tmp/err" \
  || bad "with regions on: exit status $?"
grep -q '"step' "$tmp/r.json" 2> /dev/null || { bad "with regions on: no report of step"; cat "$tmp/err"; }

[ "$fail" = 0 ] && echo "side_effects: no runtime entry point in $(basename "$app") or" \
  "$(basename "$lib"), no STATIC_TLS, a bad setting warns and the program ends normally"
exit "$fail"
