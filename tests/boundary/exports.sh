#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shared libompbench exports the public API and nothing else: every
# defined symbol of its dynamic table is a public ompb_ name, never an
# internal ompb__ one. What compilers export on their own (the locks of
# named critical sections and of Clang's reductions, .gomp_critical_user_*;
# _init, _fini and friends from older linkers) is kept in by the version
# script lib/ompbench.map, so none of it is allowed here either.
# And the fork guard's entry points (lib/fork_guard.c), which are not the
# toolchain's but must be exported under the OpenMP runtime's names: the
# GOMP_parallel* functions GCC calls for every parallel construct, and
# GOMP_teams_reg, its call for a host teams construct. They
# count the regions a watched thread opens and forward each call to the
# runtime; a shared libompbench detects nested regions only because code
# that calls these names reaches its definitions first. Exactly the list
# below is allowed, each one weak (W), so that nothing else slips in under
# a runtime's prefix and a static link with libgomp.a does not clash.
# Usage: exports.sh NM LIBRARY.so
set -euo pipefail
export LC_ALL=C
nm=${1:-nm} lib=$2

guard_entries="GOMP_parallel GOMP_parallel_reductions GOMP_parallel_sections
  GOMP_parallel_loop_static GOMP_parallel_loop_dynamic GOMP_parallel_loop_guided
  GOMP_parallel_loop_nonmonotonic_dynamic GOMP_parallel_loop_nonmonotonic_guided
  GOMP_parallel_loop_runtime GOMP_parallel_loop_nonmonotonic_runtime
  GOMP_parallel_loop_maybe_nonmonotonic_runtime GOMP_parallel_start
  GOMP_parallel_sections_start GOMP_parallel_loop_static_start
  GOMP_parallel_loop_dynamic_start GOMP_parallel_loop_guided_start
  GOMP_parallel_loop_runtime_start GOMP_teams_reg"

syms=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sort -u)
public=$(grep -E '^ompb_[a-z0-9]' <<< "$syms" || true)
# The guard's entries as exported, with their binding: each must be there, weak.
guard=$("$nm" -D --defined-only "$lib" | awk 'NF >= 3 && $3 ~ /^GOMP_/ { print $3, $2 }' | sort -u)
guard_names=$(awk '$2 == "W" { print $1 }' <<< "$guard" | grep -xF -f <(tr -s ' \n' '\n' <<< "$guard_entries" | sed '/^$/d') || true)
missing=$(comm -13 <(echo "$guard_names") <(tr -s ' \n' '\n' <<< "$guard_entries" | sed '/^$/d' | sort -u))
if [ -n "$missing" ]; then
  echo "FAIL: $lib does not export the fork guard's entries (weak): $(echo $missing)"
  exit 1
fi
bad=$(comm -23 <(echo "$syms") <(printf '%s\n' "$public" "$guard_names" | sed '/^$/d' | sort -u))
count() { sed '/^$/d' <<< "$1" | wc -l; }

if [ -n "$bad" ]; then
  echo "FAIL: $lib exports $(count "$bad") symbol(s) outside the public API:"
  sed 's/^/    /' <<< "$bad"
  exit 1
fi
# An empty table (a stripped or wrong file) would pass the check above.
[ "$(count "$public")" -gt 0 ] || { echo "FAIL: $lib exports no ompb_ symbol"; exit 1; }
echo "exports: $(count "$syms") dynamic symbols: $(count "$public") public," \
     "$(count "$guard_names") fork-guard entries"
