#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The contributing tests' shared tree (ctest fixture contributing_tree):
# one copy of the source tree in WORK_DIR/tree, made equal to SRC_DIR
# (tree.py sync: only what differs is copied, so a second run copies
# nothing), and one Release -Werror build of it in WORK_DIR/build with the
# two programs the recipes run (the example suite and the ompbench tool),
# at -O1 (below).
# Each recipe test (recipe.sh) then applies its change to this tree,
# rebuilds what the change feeds, checks, and puts the tree back: one full
# build instead of one per recipe.
# Usage: setup.sh BUILD_DIR SRC_DIR WORK_DIR
set -euo pipefail
src=$(cd "$2" && pwd)
work=$3
mkdir -p "$work"
timeout 120 python3 "$src/tests/contributing/tree.py" sync "$src" "$work/tree"
# At -O1: the recipes check which files a change touches and what the
# programs then print, never a speed, and -O1 compiles the two programs
# with a quarter less CPU than the Release -O3 (76 s against 103 s, user +
# system); __OPTIMIZE__ stays defined, so no figure is marked unoptimized.
if ! timeout 600 cmake -S "$work/tree" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
       "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" -DBUILD_TESTING=OFF -DOMPB_WERROR=ON \
       > "$work/cmake.log" 2>&1; then
  cat "$work/cmake.log"; exit 1
fi
if ! timeout 900 cmake --build "$work/build" -j 2 --target examples ompbench_tool \
       > "$work/build.log" 2>&1; then
  tail -40 "$work/build.log"; exit 1
fi
echo "ok: the shared tree $work/tree, built in $work/build"
