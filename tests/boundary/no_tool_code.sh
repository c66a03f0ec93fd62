#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tool code stays out of the user library: no symbol of ompbench_tools
# (results analysis and the collector, tools/lib) appears in a benchmark
# binary or in libompbench, and neither does any name of those families
# (ompb__collector_, ompb__resultfile_, ompb__compare_, ompb__comparison_,
# the statistics of compare: ompb__welch, ompb__t_cdf, ompb__t_quantile,
# ompb__interval_p, ompb__bh_adjust; ompb__scaling_), should such code come back
# under lib/. Static and shared libraries are read whole (nm lists every
# member and local symbol), so code that no benchmark happens to call is
# caught too.
# Usage: no_tool_code.sh NM TOOLS_LIBRARY.a FILE...
set -euo pipefail
export LC_ALL=C
nm=${1:-nm} tools=$2
shift 2
families='^ompb__(collector_|resultfile_|compare_|comparison_|welch|t_cdf|t_quantile|interval_p|bh_adjust|scaling_)'

tool_syms=$("$nm" -g --defined-only "$tools" 2>/dev/null | awk 'NF >= 3 { print $3 }' | sort -u)
# The families must be where this check expects them, or it checks nothing.
for f in collector_ resultfile_ compare_ welch bh_adjust scaling_; do
  grep -qE "^ompb__$f" <<< "$tool_syms" || {
    echo "FAIL: $(basename "$tools") defines no ompb__$f symbol: update this check"; exit 1; }
done

fail=0
for file in "$@"; do
  syms=$("$nm" "$file" 2>/dev/null | awk 'NF >= 2 { print $NF }' | sort -u)
  grep -qE '^ompb_register$' <<< "$syms" || {
    echo "FAIL: $file has no symbol table to check (stripped?)"; fail=1; continue; }
  found=$( (comm -12 <(echo "$syms") <(echo "$tool_syms"); grep -E "$families" <<< "$syms") \
           | sed '/^$/d' | sort -u || true)
  if [ -n "$found" ]; then
    echo "FAIL: $file carries tool code ($(wc -l <<< "$found") symbols):"
    sed 's/^/    /' <<< "$found" | head -20
    fail=1
  else
    echo "no_tool_code: $(basename "$file"): none of the $(wc -l <<< "$tool_syms") tool symbols"
  fi
done
exit "$fail"
