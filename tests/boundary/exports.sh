#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared libompbench exports the public API and nothing else: every
# defined symbol of its dynamic table is a public ompb_ name, never an
# internal ompb__ one. What compilers export on their own (the locks of
# named critical sections and of Clang's reductions, .gomp_critical_user_*;
# _init, _fini and friends from older linkers) is kept in by the version
# script lib/ompbench.map, so none of it is allowed here either. In
# particular no definition of an OpenMP runtime entry point (GOMP_*,
# __kmpc_*): the fork guard's live in ompbench::fork_guard and the main()
# libraries (lib/main/fork_guard_gnu.c), never in what an application links for
# regions or hooks (boundary/side_effects.sh checks such a program).
# Usage: exports.sh NM LIBRARY.so
set -euo pipefail
export LC_ALL=C
nm=${1:-nm} lib=$2

syms=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u)
public=$(grep -E '^ompb_[a-z0-9]' <<< "$syms" || true)
bad=$(comm -23 <(echo "$syms") <(echo "$public") | sed '/^$/d')
count() { sed '/^$/d' <<< "$1" | wc -l; }

if [ -n "$bad" ]; then
  echo "FAIL: $lib exports $(count "$bad") symbol(s) outside the public API:"
  sed 's/^/    /' <<< "$bad"
  exit 1
fi
# An empty table (a stripped or wrong file) would pass the check above.
[ "$(count "$public")" -gt 0 ] || { echo "FAIL: $lib exports no ompb_ symbol"; exit 1; }
echo "exports: $(count "$syms") dynamic symbols, all public"
