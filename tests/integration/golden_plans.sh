#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Golden --show-plan outputs on the machine shapes of tests/topologies/
# (hwloc synthetic descriptions and XML, each stating its model): for every
# shape, every pin policy (compact, spread, none, cpus:LIST, a LIKWID domain
# expression, the default) at the shape's thread counts (T = 1, one L3 or
# LLC group, one NUMA node or socket, all cores, all PUs: the "threads:"
# line of the shape), and with OMP_PLACES/OMP_PROC_BIND set, with and
# without --pin. Compared with tests/topologies/golden/<shape>.txt; a
# mismatch prints a unified diff. OMPB_REGEN_GOLDEN=1 rewrites the goldens
# instead (CONTRIBUTING.md): review the diff by hand before committing it.
#
# What the goldens were reviewed for (by hand, once):
# - compact fills one PU per core first, core by core, and a core's SMT
#   siblings only after every core has a thread: Genoa T=192 uses PUs
#   0-191 only, T=384 adds 192-383; POWER9 T=44 takes PU 4c of each core.
# - spread puts one thread per socket, then per NUMA node, then per L3/CCD
#   before a second thread shares one: Genoa NPS1 T=24 has one thread on
#   each of the 24 CCDs (PUs 0, 8, 16, ...), NPS4 T=8 one per NUMA node;
#   SPR SNC4 T=14 splits 7 + 7 over the sockets and 2, 2, 2, 1 over each
#   socket's SNC domains; A64FX T=12 three per CMG; KNL T=2 takes two tiles
#   far apart (cores 0 and 34) where compact takes both cores of tile 0.
# - P-cores before E-cores whatever the numbering: the Alder Lake laptop
#   (P first) and the Apple M2 under Asahi (E-cores are PUs 0-3) both give
#   T=4 on the four P-cores, compact and spread.
# - a cpuset is honoured: the Slurm job's machine uses PUs 16-23,48-55
#   only, with socket numbers kept (S1:...) and its summary counting the
#   whole machine.
# - domain expressions count physical cores first: S1:0-7 on Genoa is PUs
#   96-103, M0:96-97 the SMT siblings 192-193.
# - with OMP_PLACES/OMP_PROC_BIND and no --pin the runtime decides (and the
#   preview says it cannot show the runtime's map of another machine);
#   with --pin spread ompbench binds last and the map is spread's.
set -uo pipefail
build=$1 src=$2
bin="$build/benches/examples"
corpus="$src/tests/topologies"
golden="$corpus/golden"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset OMP_PLACES OMP_PROC_BIND GOMP_CPU_AFFINITY KMP_AFFINITY HWLOC_SYNTHETIC HWLOC_XMLFILE
export OMPB_RUNNER_CTL_FIFO="$tmp/no-ctl" OMPB_RUNNER_ACK_FIFO="$tmp/no-ack"
bench='^count_set_bits\[42'
limit=$((60 * ${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}))
fail=0

key() {   # key FILE NAME: the value of "NAME: ..." in the shape file
  sed -n "s/^\(# \)\{0,1\}$2: //p" "$1" | head -n 1
}

preview() {   # preview SHAPE-FILE [VAR=VALUE...] -- ARGS...: one case's --show-plan
  local file=$1; shift
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  case "$file" in
    *.synthetic) envs+=("HWLOC_SYNTHETIC=$(key "$file" synthetic)") ;;
    *.xml) envs+=("HWLOC_XMLFILE=$file") ;;
  esac
  env "${envs[@]}" timeout "$limit" "$bin" --show-plan --filter "$bench" "$@" 2>&1
  echo "exit: $?"
}

shape_plans() {   # shape_plans FILE: every case of one shape
  local file=$1 threads domains cpus
  threads=$(key "$file" threads | tr ' ' ',')
  domains=$(key "$file" domains)
  cpus=$(key "$file" cpus)
  for pin in compact spread none "cpus:$cpus" "$domains"; do
    echo "## --pin $pin"
    preview "$file" -- --threads "$threads" --pin "$pin"
  done
  echo "## no --pin"
  preview "$file" -- --threads "$threads"
  echo "## OMP_PLACES=cores OMP_PROC_BIND=close, no --pin"
  preview "$file" OMP_PLACES=cores OMP_PROC_BIND=close -- --threads "$threads"
  echo "## OMP_PLACES=cores OMP_PROC_BIND=spread, --pin spread"
  preview "$file" OMP_PLACES=cores OMP_PROC_BIND=spread -- --threads "$threads" --pin spread
}

first_difference() {   # the first differing thread of each changed map line
  python3 - "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()[2:]
old = [l[1:] for l in lines if l.startswith("-")]
new = [l[1:] for l in lines if l.startswith("+")]
for a, b in zip(old, new):
    ta, tb = a.split(), b.split()
    for i, (x, y) in enumerate(zip(ta, tb)):
        if x != y:
            print("  %s: golden %s, now %s" % (" ".join(ta[:2]), x, y))
            break
PY
}

shapes=0
for file in "$corpus"/*.synthetic "$corpus"/*.xml; do
  name=$(basename "${file%.*}")
  shapes=$((shapes + 1))
  shape_plans "$file" > "$tmp/$name.txt"
  if [ "${OMPB_REGEN_GOLDEN:-0}" = 1 ]; then
    mkdir -p "$golden" && cp "$tmp/$name.txt" "$golden/$name.txt"
    echo "golden_plans: wrote $golden/$name.txt"
  elif [ ! -f "$golden/$name.txt" ]; then
    echo "FAIL: $name: no golden $golden/$name.txt (OMPB_REGEN_GOLDEN=1 writes it)"; fail=1
  elif ! diff -u --label "golden/$name.txt" --label "now" "$golden/$name.txt" "$tmp/$name.txt" \
         > "$tmp/$name.diff"; then
    echo "FAIL: $name: --show-plan differs from the golden (- golden, + now):"
    first_difference "$tmp/$name.diff"
    cut -c1-300 "$tmp/$name.diff"; fail=1
  fi
done
for g in "$golden"/*.txt; do
  n=$(basename "$g" .txt)
  [ -f "$corpus/$n.synthetic" ] || [ -f "$corpus/$n.xml" ] \
    || { echo "FAIL: golden $n.txt has no shape in $corpus"; fail=1; }
done
[ "$shapes" -ge 8 ] || { echo "FAIL: only $shapes machine shapes"; fail=1; }
[ $fail -eq 0 ] && echo "golden_plans: $shapes machine shapes match their goldens"
exit $fail
