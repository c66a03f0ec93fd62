#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The regions are a one-way chain of modules (docs/architecture.md,
# "regions"): a module includes and calls only the modules before it.
# - every lib/regions/region*.c and .h includes only region headers of
#   its own module or an earlier one, and each .c includes its own header
#   first;
# - in the library's objects, every ompb__region*/ompb__regions* symbol a
#   region object uses is defined by its own object or an earlier one's
#   (a call back up the chain fails, whatever the includes say).
# A lib/regions/region*.c that is not in the chain fails too: add it to CHAIN here
# and to the list in docs/architecture.md.
# Usage: region_chain.sh NM SRC_DIR LIBRARY_OBJECTS.a
#        region_chain.sh --self-test NM SRC_DIR LIBRARY_OBJECTS.a
#        (the checker on a broken copy of the sources and on the objects
#        against a reordered chain: both must fail)
set -euo pipefail
export LC_ALL=C

CHAIN=(region_settings region_stats region_entry region_table region_thread region_forks
       region_misuse region_counters region_runner region_warnings region_report region_signal
       region)

# Position of module $1 in the chain (CHAIN may be reordered by the caller).
rank() {
  local i
  for i in "${!CHAIN[@]}"; do
    [[ ${CHAIN[$i]} == "$1" ]] && { echo "$i"; return; }
  done
  echo -1
}

# The include rule over the region sources in directory $1; prints each
# violation, returns 1 if any.
check_includes() {
  local dir=$1 bad=0 f mod own inc first
  for f in "$dir"/region*.c "$dir"/region*.h; do
    mod=$(basename "${f%.*}") own=$(rank "$mod")
    if [[ $own -lt 0 ]]; then
      echo "FAIL: $f: module $mod is not in the regions' chain"
      bad=1
      continue
    fi
    first=$(grep -m1 -E '^#include "' "$f" | sed -E 's/^#include "(regions\/)?([^"]+)".*/\2/' || true)
    if [[ $f == *.c && $first != "$mod.h" ]]; then
      echo "FAIL: $f: its first include is '$first', not its own header $mod.h"
      bad=1
    fi
    while read -r inc; do
      [[ -n $inc ]] || continue
      local r
      r=$(rank "${inc%.h}")
      if [[ $r -gt $own ]]; then
        echo "FAIL: $f includes $inc: ${inc%.h} comes after $mod in the chain"
        bad=1
      fi
    done < <(grep -E '^#include "(regions/)?region[a-z_]*\.h"' "$f" |
             sed -E 's/^#include "(regions\/)?([^"]+)".*/\2/')
  done
  return $bad
}

# The call rule over the objects of archive $2 (nm $1).
check_symbols() {
  local nm=$1 archive=$2
  local listing
  listing=$("$nm" -A "$archive" 2>/dev/null | grep -E ':region[a-z_]*\.c\.o:' || true)
  if [[ -z $listing ]]; then
    echo "FAIL: no region object in $archive"
    return 1
  fi
  # member -> module, defined symbols -> module
  awk -v chain="${CHAIN[*]}" '
    BEGIN { n = split(chain, c, " "); for (i = 1; i <= n; i++) rank[c[i]] = i }
    {
      split($1, p, ":"); obj = p[2]; sub(/\.c\.o$/, "", obj)
      sym = $NF; type = $(NF - 1)
      if (sym !~ /^ompb__regions?_/) next
      if (type == "U") { use[obj, sym] = 1; users[obj] = 1 }
      else if (type ~ /^[TDBRC]$/) def[sym] = obj
    }
    END {
      bad = 0
      for (k in use) {
        split(k, q, SUBSEP); obj = q[1]; sym = q[2]
        if (!(sym in def)) continue
        if (!(obj in rank) || !(def[sym] in rank)) {
          printf "FAIL: %s uses %s of %s: a module not in the chain\n", obj, sym, def[sym]
          bad = 1
        } else if (rank[def[sym]] > rank[obj]) {
          printf "FAIL: %s calls %s of %s, which comes after it in the chain\n", obj, sym, def[sym]
          bad = 1
        }
      }
      exit bad
    }' <<< "$listing"
}

if [[ ${1:-} == --self-test ]]; then
  shift
  nm=$1 src=$2 objs=$3
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cp "$src"/lib/regions/region*.c "$src"/lib/regions/region*.h "$tmp"/
  check_includes "$tmp" > /dev/null || { echo "FAIL: the pristine copy fails"; exit 1; }
  # An entry that reaches the report: an include up the chain.
  sed -i '0,/^#include "core\/core.h"/s//#include "core\/core.h"\n#include "regions\/region_report.h"/' \
    "$tmp"/region_entry.c
  if check_includes "$tmp" > "$tmp"/out; then
    echo "FAIL: an include of region_report.h from region_entry.c passed"
    exit 1
  fi
  grep -q 'region_entry.c includes region_report.h' "$tmp"/out ||
    { echo "FAIL: the message does not name the edge:"; cat "$tmp"/out; exit 1; }
  # The real objects against a chain where the report comes before the
  # runner it calls: the call must be found.
  CHAIN=(region_settings region_stats region_entry region_table region_thread region_forks
       region_misuse
         region_counters region_report region_runner region_warnings region_signal region)
  if check_symbols "$nm" "$objs" > "$tmp"/out; then
    echo "FAIL: region_report's calls into region_runner passed a chain that puts it first"
    exit 1
  fi
  grep -q 'region_report calls ompb__region_runner' "$tmp"/out ||
    { echo "FAIL: the message does not name the call:"; cat "$tmp"/out; exit 1; }
  echo "ok: the checker fails on an include and on a call up the chain"
  exit 0
fi

nm=$1 src=$2 objs=$3
status=0
check_includes "$src/lib/regions" || status=1
check_symbols "$nm" "$objs" || status=1
[[ $status -eq 0 ]] && echo "ok: the regions' modules form a one-way chain: ${CHAIN[*]}"
exit $status
