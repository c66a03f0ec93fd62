#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The engine's seams, checked on its objects (the symbols each one calls):
# - no engine object (lib/round*.c) calls a process-wide collaborator: the
#   installed distribution (ompb__dist and the run's steps on it), the
#   instrument, the body guard's state, the installed fork guard or the
#   default environment; they come from ompb__engine_env
#   (docs/architecture.md, "Contracts": run -> engine);
# - the two drivers call the core, never each other, and the core
#   (round_team, round_calibrate) calls no driver;
# - the registry reads no distribution (the rank layout is a parameter).
# The checker is tested first on an object that breaks two of the rules:
# it must name both, or this script fails.
# Usage: engine_env.sh NM CC LIBRARY.a
set -euo pipefail
export LC_ALL=C
nm=$1 cc=$2 lib=$3

singletons='^ompb__(dist|dist_rank|dist_ranks|dist_max|dist_from_rank0|dist_all_equal'
singletons+='|dist_gather_i64|dist_abort|fork_watch_set|fork_guard_coverage'
singletons+='|fork_guard_installed|engine_env_default)$|^ompb__instrument_'
singletons+='|^ompb__body_guard_(run_|signal$|claim|slot|team|handler_replaced|ignore|die)'
drivers='^ompb__(harness_team_run|caller_team_run|barrier_cost_ns|round_run)$'

# The rule for an object (by its source's name), as an extended regex of
# the symbols it must not call; empty: not checked.
rule_of() {
  case $1 in
    round.c.o) echo "$singletons" ;;
    round_harness.c.o) echo "$singletons|^ompb__caller_team_run$" ;;
    round_caller.c.o) echo "$singletons|^ompb__(harness_team_run|barrier_cost_ns|round_run)$" ;;
    round_team.c.o) echo "$singletons|$drivers" ;;
    round_calibrate.c.o) echo "$singletons|$drivers|^ompb__team_" ;;
    registry.c.o) echo '^ompb__dist' ;;
    *) echo '' ;;
  esac
}

# "member symbol" for every undefined symbol of every member of $1 (an
# archive, or one object: its own name).
undefined() {
  "$nm" -u "$1" 2>/dev/null | awk -v member="$(basename "$1")" '
    /:$/ { member = $0; sub(/:$/, "", member); next }
    NF >= 2 && $1 == "U" { print member, $2 }
    NF == 1 { print member, $1 }'
}

# Prints every forbidden call in an undefined-symbol listing; returns 1
# when there is one.
check() {
  local bad=0 member sym rule
  while read -r member sym; do
    rule=$(rule_of "$(basename "$member")")
    if [ -n "$rule" ] && grep -qE "$rule" <<< "$sym"; then
      echo "  $(basename "$member") calls $sym"
      bad=1
    fi
  done
  return $bad
}

# The checker itself: a harness driver that reads the installed
# distribution and calls the caller driver.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/bad.c" <<'EOF'
const void *ompb__dist(void);
int ompb__caller_team_run(void *tm);
int bad(void) { return ompb__dist() != 0 && ompb__caller_team_run(0); }
EOF
"$cc" -c "$tmp/bad.c" -o "$tmp/round_harness.c.o"
found=$(undefined "$tmp/round_harness.c.o" | check || true)
if ! grep -q 'calls ompb__dist$' <<< "$found" || ! grep -q 'calls ompb__caller_team_run$' <<< "$found"; then
  echo "FAIL: the checker missed a forbidden call in a test object; it found:"
  echo "${found:-  nothing}"
  exit 1
fi

# The engine's objects must be there, or nothing is checked.
listing=$(undefined "$lib" | grep -E '^(round|round_team|round_calibrate|round_harness|round_caller|registry)\.c\.o ' || true)
for obj in round.c.o round_team.c.o round_calibrate.c.o round_harness.c.o round_caller.c.o \
           registry.c.o; do
  grep -q "^$obj " <<< "$listing" || {
    echo "FAIL: $(basename "$lib") has no member $obj: update this check"; exit 1; }
done
if ! found=$(check <<< "$listing"); then
  echo "FAIL: the engine reaches past its environment, or a driver past the core:"
  echo "$found"
  exit 1
fi
echo "engine_env: the engine's objects call only their environment; drivers only the core"
