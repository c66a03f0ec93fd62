# SPDX-License-Identifier: MIT
# The preamble of the contributing recipe tests (sourced, not a test):
#
#   . "$(dirname "$0")/recipe.sh" "$@"      # BUILD_DIR SRC_DIR WORK_DIR
#
# gives set -euo pipefail; build, src (absolute); tree, the shared copy
# of the source tree that contributing.setup made and built (ctest runs it
# first: fixture contributing_tree), made equal to src again here, so the
# recipe starts from the unchanged tree whatever ran before it, and again
# on exit; tmp, a private folder removed on exit; the runner FIFO
# variables pointed at absent paths. The recipes share the tree, so ctest
# runs them one at a time (RESOURCE_LOCK contributing_tree).
#   recipe_files "SECTION" [PREFIX]: checks that the tree differs from src in
#       exactly as many files as CONTRIBUTING.md's section "## SECTION"
#       says its recipe changes ("changes exactly two files"), each under
#       PREFIX if given, and prints them;
#   recipe_build TARGET...: builds the targets in the shared build.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
work=${3:?usage: $0 BUILD_DIR SRC_DIR WORK_DIR : the shared tree of the fixture}
tree=$work/tree
tmp=$(mktemp -d)
recipe_tree() { timeout 120 python3 "$src/tests/contributing/tree.py" "$@"; }
recipe_cleanup() {
  recipe_tree sync "$src" "$tree" > /dev/null || echo "FAIL: could not restore $tree" >&2
  rm -rf "$tmp"
}
trap recipe_cleanup EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
unset CODSPEED_ENV CODSPEED_RUNNER_MODE CODSPEED_PROFILE_FOLDER OMPB_RUNNER
[ -f "$work/build/CMakeCache.txt" ] && [ -d "$tree" ] || {
  echo "FAIL: no shared tree in $work: run the test through ctest, which runs contributing.setup first"
  exit 1
}
recipe_tree sync "$src" "$tree" > /dev/null
[ -z "$(recipe_tree diff "$src" "$tree")" ] || { echo "FAIL: $tree differs from $src after a sync"; exit 1; }

recipe_files() {
  local section=$1 prefix=${2:-} word claimed changed
  word=$(awk -v s="## $section" '$0 == s { on = 1; next } /^## / { on = 0 } on' "$src/CONTRIBUTING.md" \
         | tr '\n' ' ' | grep -oE 'changes exactly (one|two|three|four|five) files?' | head -1 | awk '{ print $3 }')
  case $word in
    one) claimed=1 ;; two) claimed=2 ;; three) claimed=3 ;; four) claimed=4 ;; five) claimed=5 ;;
    *) echo "FAIL: CONTRIBUTING.md's '## $section' does not say how many files its recipe changes"; exit 1 ;;
  esac
  changed=$(recipe_tree diff "$src" "$tree")
  if [ "$(grep -c . <<< "$changed")" -ne "$claimed" ] || { [ -n "$prefix" ] && grep -qv "^$prefix" <<< "$changed"; }; then
    echo "FAIL: CONTRIBUTING.md says its '$section' recipe changes $claimed files${prefix:+ under $prefix}; it changed:"
    echo "$changed"
    exit 1
  fi
  echo "the recipe changes $claimed files, as CONTRIBUTING.md says:" $changed
}

recipe_build() {
  if ! timeout 900 cmake --build "$work/build" -j 2 --target "$@" > "$tmp/build.log" 2>&1; then
    tail -30 "$tmp/build.log"; exit 1
  fi
}
