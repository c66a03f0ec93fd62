# SPDX-License-Identifier: MIT
# The preamble the integration scripts share (sourced, not a test:
# tests/CMakeLists.txt leaves it out). A script starts with
#
#   fail_fast=1          # optional: the first failure ends the script
#   keep_tmp=1           # optional: the temporary directory outlives it
#   script_bound=300     # optional: seconds the whole script may take (600)
#   . "$(dirname "$0")/lib.sh" "$@"
#
# and then has:
# - `set -uo pipefail` (a script that wants -e adds `set -e` itself: most
#   go on after a failed check, to report every failure of the run);
# - itself re-executed under `timeout` for script_bound seconds times
#   OMPB_TEST_TIMEOUT_MULTIPLIER, so that no script outlives its bound
#   whatever hangs (exit status 124, with a line saying so);
# - build and src: the build and source directories (arguments 1 and 2),
#   absolute; mult: the timeout multiplier (default 1);
# - tmp: a private temporary directory, removed on exit after the
#   script's own at_exit function, if it defines one, has run (it stops
#   the processes the script started, by PID); kept (and named on stderr)
#   when keep_tmp is set;
# - OMPB_RUNNER_CTL_FIFO/OMPB_RUNNER_ACK_FIFO pointed at paths in tmp that
#   do not exist, and CODSPEED_ENV, CODSPEED_RUNNER_MODE,
#   CODSPEED_PROFILE_FOLDER and OMPB_RUNNER unset, as ctest does (cmake/OmpbenchTestEnv.cmake),
#   also when the script runs by hand: no run talks to a runner the script
#   did not start (a script that starts one exports its own paths after
#   this);
# - fails (0) and fail MESSAGE: prints "FAIL: MESSAGE" on stderr and counts
#   it, or ends the script with status 1 when fail_fast is set.
set -uo pipefail

mult=${OMPB_TEST_TIMEOUT_MULTIPLIER:-1}
case $mult in '' | *[!0-9]* | 0) mult=1 ;; esac

# The bound: once, for this script (a script that runs another one bounds
# that one too). timeout signals its whole process group when it expires.
if [ "${OMPB_TEST_BOUNDED:-}" != "$0" ]; then
  export OMPB_TEST_BOUNDED=$0
  exec timeout -k 10 $((${script_bound:-600} * mult)) bash "$0" "$@"
fi
trap 'echo "FAIL: $0 ran beyond its bound of $((${script_bound:-600} * mult)) s" >&2; exit 124' TERM

build=$(cd "${1:?usage: $0 BUILD_DIR [SOURCE_DIR]}" && pwd)
src=
[ -n "${2:-}" ] && src=$(cd "$2" && pwd)

tmp=$(mktemp -d)
ompb_test_cleanup() {
  if declare -F at_exit > /dev/null; then at_exit || true; fi
  if [ -n "${keep_tmp:-}" ]; then echo "kept $tmp" >&2; else rm -rf "$tmp"; fi
}
trap ompb_test_cleanup EXIT
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl.fifo OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack.fifo
unset CODSPEED_ENV CODSPEED_RUNNER_MODE CODSPEED_PROFILE_FOLDER OMPB_RUNNER

fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
  [ -z "${fail_fast:-}" ] || exit 1
}
