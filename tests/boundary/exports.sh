#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared libompbench exports the public API and nothing else: every
# defined symbol of its dynamic table is a public ompb_ name, never an
# internal ompb__ one, or one of the symbols the toolchain adds by itself:
# - _init, _fini, _edata, _end, __bss_start: older GNU ld versions export
#   them from every shared object (current ones do not);
# - .gomp_critical_user_NAME (GCC) or .gomp_critical_user_NAME.var (Clang):
#   the lock of `#pragma omp critical(NAME)`. OpenMP makes critical sections
#   of one name exclude each other across the whole program, so compilers
#   give the lock default visibility whatever -fvisibility says; NAME lives
#   in that program-wide namespace and must carry our prefix;
# - .gomp_critical_user_.reduction.var (Clang): the same kind of lock, that
#   Clang's OpenMP reductions fall back on.
# Usage: exports.sh NM LIBRARY.so
set -euo pipefail
export LC_ALL=C
nm=${1:-nm} lib=$2

syms=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u)
public=$(grep -E '^ompb_[a-z0-9]' <<< "$syms" || true)
toolchain=$(grep -E '^(_init|_fini|_edata|_end|__bss_start)$' <<< "$syms" || true
           grep -E '^\.gomp_critical_user_(ompb_[a-z0-9_]+(\.var)?|\.reduction\.var)$' <<< "$syms" || true)
bad=$(comm -23 <(echo "$syms") <(printf '%s\n' "$public" "$toolchain" | sed '/^$/d' | sort -u))
count() { sed '/^$/d' <<< "$1" | wc -l; }

if [ -n "$bad" ]; then
  echo "FAIL: $lib exports $(count "$bad") symbol(s) outside the public API:"
  sed 's/^/    /' <<< "$bad"
  exit 1
fi
# An empty table (a stripped or wrong file) would pass the check above.
[ "$(count "$public")" -gt 0 ] || { echo "FAIL: $lib exports no ompb_ symbol"; exit 1; }
echo "exports: $(count "$syms") dynamic symbols: $(count "$public") public," \
     "$(count "$toolchain") from the toolchain ($(echo $toolchain))"
