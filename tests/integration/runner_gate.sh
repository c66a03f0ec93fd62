#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Who talks to the CodSpeed runner (issue 30, item 2; docs/protocol.md,
# "Who talks to the runner"):
# - an application that links ompbench only for region markers, without
#   CODSPEED_ENV and without explicit FIFO paths, never looks at the default
#   FIFO paths: strace sees no system call naming /tmp/runner.ctl.fifo or
#   /tmp/runner.ack.fifo (an explicit path is looked at: the trace can see
#   it);
# - in a private mount namespace (a tmpfs on /tmp, so no one else's FIFO is
#   touched) with stale FIFOs at the default paths: that application runs
#   as fast as without them (the least of 5 alternating runs each, as a
#   ratio; the runner timeout is set to 20 s, so a wait shows), with no
#   warning, and a
#   benchmark binary with OMPB_RUNNER=off too; with CODSPEED_ENV set, the
#   application does find them (they are where it would look);
# - OMPB_RUNNER=off under a live runner twin (ompbench collect): no frame
#   from the application nor from a benchmark binary;
# - a bad OMPB_RUNNER: one line naming it and what is accepted; exit 2 from
#   a benchmark binary, a warning and no runner from the application.
# Parts that need strace or unshare say SKIP when they cannot run.
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"

app="$build/tests/region_app"
bench="$build/benches/examples"
tool="$build/tools/ompbench"
filter='count_set_bits\[42\]$'
# LeakSanitizer cannot run under ptrace (sanitizer builds).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export OMPB_REGIONS_OUTPUT=/dev/null

# --- bad values ---------------------------------------------------------------
OMPB_RUNNER=maybe timeout 60 "$bench" --test --filter "$filter" > "$tmp/bad.out" 2> "$tmp/bad.err"
rc=$?
[ "$rc" -eq 2 ] || fail "OMPB_RUNNER=maybe: benchmark binary exit status $rc, expected 2"
[ "$(wc -l < "$tmp/bad.err")" -eq 1 ] \
  && grep -q "OMPB_RUNNER: invalid value 'maybe' (accepted: auto, on, off)" "$tmp/bad.err" \
  || { fail "OMPB_RUNNER=maybe: not one line naming it:"; cat "$tmp/bad.err" >&2; }
OMPB_RUNNER=maybe timeout 60 "$app" first-use > /dev/null 2> "$tmp/badapp.err" \
  || fail "OMPB_RUNNER=maybe: the region application failed"
[ "$(grep -c "OMPB_RUNNER: invalid value 'maybe' (accepted: auto, on, off); not talking to the CodSpeed runner" "$tmp/badapp.err")" -eq 1 ] \
  || { fail "OMPB_RUNNER=maybe: no single warning from the application:"; cat "$tmp/badapp.err" >&2; }

# --- the default paths are never looked at without CODSPEED_ENV ---------------
if ! command -v strace > /dev/null || ! strace -f -o /dev/null true 2> /dev/null; then
  echo "SKIP (part): strace missing or ptrace not permitted"
else
  (unset OMPB_RUNNER_CTL_FIFO OMPB_RUNNER_ACK_FIFO
   timeout 120 strace -f -e trace=%file -o "$tmp/default.trace" "$app" first-use > /dev/null 2>&1) \
    || fail "region_app first-use under strace failed"
  n=$(grep -c 'runner\.\(ctl\|ack\)\.fifo' "$tmp/default.trace")
  [ "$n" -eq 0 ] || { fail "without CODSPEED_ENV the application looked at the default FIFOs $n times:"
                      grep 'runner\.\(ctl\|ack\)\.fifo' "$tmp/default.trace" | head -5 >&2; }
  # The check can fail: an explicit path is looked at, and strace shows it.
  (export OMPB_RUNNER_CTL_FIFO=$tmp/probe.ctl OMPB_RUNNER_ACK_FIFO=$tmp/probe.ack
   timeout 120 strace -f -e trace=%file -o "$tmp/probe.trace" "$app" first-use > /dev/null 2>&1)
  grep -q "$tmp/probe.ctl" "$tmp/probe.trace" \
    || fail "with OMPB_RUNNER_CTL_FIFO set the application did not look at it (the trace cannot see it?)"
fi

# --- stale FIFOs at the default paths, in a private /tmp ----------------------
# Runs in a mount namespace of its own: a tmpfs on /tmp hides the real /tmp
# (its FIFOs, a runner's, a test fixture's), so the FIFOs made here are no
# one else's and no one else's are touched.
stale_part() {
  # A build tree under /tmp (a fresh clone there) stays where it is: held
  # at /mnt (in this namespace only) while the tmpfs goes on /tmp, then
  # bound back to its own path inside it.
  case "$build/" in
    /tmp/*)
      [ -d /mnt ] && mount --bind "$build" /mnt || exit 77
      mount -t tmpfs ompb-private-tmp /tmp || exit 77
      mkdir -p "$build" && mount --bind /mnt "$build" || exit 77 ;;
    *)
      mount -t tmpfs ompb-private-tmp /tmp || exit 77 ;;
  esac
  unset OMPB_RUNNER_CTL_FIFO OMPB_RUNNER_ACK_FIFO
  export OMPB_HOOKS_TIMEOUT_MS=$((20000 * mult))
  ns() { # wall ns of one run of "$@", or "stalled"
    local a b
    a=$(date +%s%N)
    timeout $((10 * mult)) "$@" > /dev/null 2>> /tmp/stderr || { echo stalled; return; }
    b=$(date +%s%N)
    echo $((b - a))
  }
  : > /tmp/stderr
  # The runs with and without the FIFOs alternate (the FIFOs are moved
  # aside and back), and each side keeps its least of 5: a host whose
  # load changes half-way (the next test starting beside this one) slows
  # both sides alike instead of only the later one.
  mkfifo /tmp/aside.ctl.fifo /tmp/aside.ack.fifo
  local with= without= t i
  for i in 1 2 3 4 5; do
    t=$(ns "$app" first-use)
    [ "$t" = stalled ] && { without=stalled; break; }
    [ -z "$without" ] || [ "$t" -lt "$without" ] && without=$t
    mv /tmp/aside.ctl.fifo /tmp/runner.ctl.fifo && mv /tmp/aside.ack.fifo /tmp/runner.ack.fifo
    t=$(ns "$app" first-use)
    mv /tmp/runner.ctl.fifo /tmp/aside.ctl.fifo && mv /tmp/runner.ack.fifo /tmp/aside.ack.fifo
    [ "$t" = stalled ] && { with=stalled; break; }
    [ -z "$with" ] || [ "$t" -lt "$with" ] && with=$t
  done
  echo "without $without"
  echo "with $with"
  mv /tmp/aside.ctl.fifo /tmp/runner.ctl.fifo && mv /tmp/aside.ack.fifo /tmp/runner.ack.fifo
  echo "bench_off $(OMPB_RUNNER=off ns "$bench" --test --filter "$filter")"
  echo "warnings $(grep -c 'runner' /tmp/stderr)"
  CODSPEED_ENV=runner OMPB_HOOKS_TIMEOUT_MS=200 timeout 60 "$app" first-use 2>&1 > /dev/null \
    | grep -c 'no answer from the runner to GetIntegrationMode' | sed 's/^/asked /'
}
if ! unshare --mount --propagation private true 2> /dev/null; then
  echo "SKIP (part): no private mount namespace (unshare --mount)"
else
  export -f stale_part
  export app bench filter mult build
  unshare --mount --propagation private bash -c stale_part > "$tmp/stale.out" 2> "$tmp/stale.err"
  rc=$?
  if [ "$rc" -eq 77 ]; then
    echo "SKIP (part): cannot mount a tmpfs on /tmp"
  else
    cat "$tmp/stale.out"
    without=$(awk '$1 == "without" { print $2 }' "$tmp/stale.out")
    with=$(awk '$1 == "with" { print $2 }' "$tmp/stale.out")
    bench_off=$(awk '$1 == "bench_off" { print $2 }' "$tmp/stale.out")
    case "$without$with" in
      *stalled* | '') fail "stale FIFOs: a run stalled or failed (without: '$without', with: '$with')" ;;
      *) [ "$with" -le $((3 * without)) ] \
           || fail "stale FIFOs: the application took $with ns against $without ns without them (more than 3x)" ;;
    esac
    [ "$bench_off" != stalled ] && [ -n "$bench_off" ] \
      || fail "stale FIFOs: a benchmark binary with OMPB_RUNNER=off stalled or failed"
    grep -qx 'warnings 0' "$tmp/stale.out" || { fail "stale FIFOs: runner warnings:"; cat "$tmp/stale.err" >&2; }
    grep -qx 'asked 1' "$tmp/stale.out" \
      || fail "with CODSPEED_ENV=runner the application did not find the stale FIFOs (not at the paths it uses?)"
  fi
fi

# --- OMPB_RUNNER=off under a live runner twin -------------------------------------
frames() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["frames"])' "$1"; }
timeout 120 "$tool" collect --json "$tmp/on.json" -- "$app" first-use > "$tmp/on.out" 2>&1 \
  || { fail "region_app first-use under collect:"; cat "$tmp/on.out" >&2; }
[ "$(frames "$tmp/on.json")" -gt 0 ] || fail "the region application sent no frame to a live runner twin"
off_frames() { # CMD...: the frames CMD sends to a live runner twin with OMPB_RUNNER=off
  rm -f "$tmp/off.json"
  OMPB_RUNNER=off timeout 120 "$tool" collect --json "$tmp/off.json" -- "$@" > "$tmp/off.out" 2>&1
  n=$(frames "$tmp/off.json")
  [ "$n" = 0 ] || { fail "OMPB_RUNNER=off: $* sent '$n' frames to a live runner twin"; cat "$tmp/off.out" >&2; }
}
off_frames "$app" first-use
off_frames "$bench" --test --filter "$filter"

exit $((fails > 0))
