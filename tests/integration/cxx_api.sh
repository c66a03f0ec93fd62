#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tests/cxx_api.cpp, built against the library as built here with g++ and,
# when installed, clang++ (C++11 and C++20, -Wall -Wextra -Wpedantic
# -Werror), and run: its benchmarks, declared with the option macros, are
# listed and run (--test, then JSON with every instance present and no
# error), and its region reaches the report. clang++ missing is a skip of
# that compiler only; g++ missing skips the whole script (77).
set -uo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
export OMPB_RUNNER_CTL_FIFO="$tmp/none.ctl" OMPB_RUNNER_ACK_FIFO="$tmp/none.ack"
command -v g++ > /dev/null || { echo "no g++: skipped"; exit 77; }
if [ -e "$build/libompbench.a" ]; then
  libs="$build/libompbench.a $(pkg-config --libs hwloc jansson) -lm -ldl"
else
  libs="-L$build -Wl,-rpath,$build -lompbench"
fi
want=$'cxx_sum[64, t=1]\ncxx_sum[64, t=2]\ncxx_sum[1024, t=1]\ncxx_sum[1024, t=2]\ncxx_tuple[(3, 4)]\ncxx_tuple[(5, 6)]'
compilers=(g++)
command -v clang++ > /dev/null && compilers+=(clang++) || echo "note: no clang++, built with g++ only"
for cxx in "${compilers[@]}"; do
  for std in c++11 c++20; do
    exe="$tmp/cxx-$cxx-$std"
    flags=${OMPB_SANITIZE_FLAGS:-}
    # clang++ -fopenmp links LLVM's libomp, which also serves the GOMP_*
    # entry points of the gcc-built library: one runtime in the process.
    omp=-fopenmp
    timeout 300 $cxx -std=$std $omp $flags -Wall -Wextra -Wpedantic -Werror -I"$src/include" \
      "$src/tests/cxx_api.cpp" $libs -o "$exe" 2> "$tmp/cc.log" \
      || { echo "FAIL: $cxx -std=$std does not build tests/cxx_api.cpp:"; cat "$tmp/cc.log"; fail=1; continue; }
    got=$(timeout 60 "$exe" --list)
    [ "$got" = "$want" ] || { echo "FAIL: $cxx $std --list: $got"; fail=1; }
    timeout 120 "$exe" --test > "$tmp/t.out" 2>&1 || { echo "FAIL: $cxx $std --test:"; cat "$tmp/t.out"; fail=1; }
    CXX_REGIONS="$tmp/r.json" timeout 120 "$exe" --format json --output "$tmp/b.json" \
      --sample-count 3 --max-time 100ms > "$tmp/run.out" 2>&1 \
      || { echo "FAIL: $cxx $std run:"; cat "$tmp/run.out"; fail=1; continue; }
    python3 - "$tmp/b.json" "$tmp/r.json" "$want" <<'PY' || { echo "FAIL: $cxx $std"; fail=1; }
import json, sys
b = [x for x in json.load(open(sys.argv[1]))["benchmarks"] if x["run_type"] == "iteration"]
names = sorted(x["name"] for x in b)
bad = []
if names != sorted(sys.argv[3].split("\n")) or any(x.get("error_occurred") for x in b):
    bad.append("benchmarks %r" % [(x["name"], x.get("error_message")) for x in b])
r = {x["name"]: x for x in json.load(open(sys.argv[2]))["benchmarks"] if x["run_type"] == "iteration"}
e = r.get("region:cxx_loop[t=2]")
if not e or e.get("error_occurred") or e["ompbench"]["region"]["instances"] != 5:
    bad.append("region:cxx_loop[t=2]: %r" % e)
for x in bad:
    print("FAIL:", x)
sys.exit(1 if bad else 0)
PY
  done
done
exit $fail
