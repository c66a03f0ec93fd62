#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The contributing tests' shared tree (ctest fixture contributing_tree):
# one copy of the source tree in BUILD_DIR/tests/contributing/tree, made
# equal to SRC_DIR (tree.py sync: only what differs is copied, so a second
# run copies nothing), and one -Werror build of it in
# BUILD_DIR/tests/contributing/build with the two programs the recipes
# run (the example suite and the ompbench tool). Each recipe test
# (recipe.sh) then applies its change to this tree, rebuilds what the
# change feeds, checks, and puts the tree back: one full build instead of
# one per recipe.
# The copy is configured like the build that runs the tests (build type,
# compiler, sanitizers: the CMake arguments after SRC_DIR), so the recipes
# run under ASan+UBSan in the sanitizer build.
# Usage: setup.sh BUILD_DIR SRC_DIR [CMAKE_ARG...]
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
shift 2
work=$build/tests/contributing
mkdir -p "$work"
timeout 120 python3 "$src/tests/contributing/tree.py" sync "$src" "$work/tree"
if ! timeout 600 cmake -S "$work/tree" -B "$work/build" -DBUILD_TESTING=OFF -DOMPB_WERROR=ON "$@" \
       > "$work/cmake.log" 2>&1; then
  cat "$work/cmake.log"; exit 1
fi
if ! timeout 900 cmake --build "$work/build" -j 2 --target examples ompbench_tool \
       > "$work/build.log" 2>&1; then
  tail -40 "$work/build.log"; exit 1
fi
echo "ok: the shared tree $work/tree, built in $work/build"
