#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# CodSpeed's walltime flame graphs are cut at a frame whose symbol starts
# with __codspeed_root_frame__ (docs/protocol.md, "Root frames"). perf
# samples example runs at OMP_NUM_THREADS=2 (software event cpu-clock, DWARF
# call graphs: a Release build keeps no frame pointers) and the samples are
# grouped by thread:
# - a harness team (stream_triad[t=2]): every sample whose stack holds the
#   body has __codspeed_root_frame__ompb_body on it, and two threads (both
#   team threads) have such samples;
# - a caller team (triad_parallel_for[t=2]): every sample whose stack holds
#   the body (the caller's thread) has the frame.
# Only the frame's presence on stacks is checked, never how many samples or
# how long anything took. Skipped (77) when perf is missing or cannot record
# here (perf_event_paranoid, seccomp, a container without perf_event_open).
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"

perf=$(command -v perf || echo /usr/bin/perf)
bin=$build/benches/examples
frame=__codspeed_root_frame__ompb_body
[ -x "$bin" ] || { echo "SKIP: $bin is not built"; exit 77; }
[ -x "$perf" ] || { echo "SKIP: no perf at $perf (Debian package linux-perf)"; exit 77; }
if ! timeout $((60 * mult)) "$perf" record -q -e cpu-clock:u --call-graph dwarf \
       -o "$tmp/probe.data" -- true > "$tmp/probe.log" 2>&1; then
  echo "SKIP: perf cannot record here: $(head -c 300 "$tmp/probe.log")"
  exit 77
fi

# record NAME FILTER: a bounded run of one instance under perf, then its
# samples as text (thread id, then the stack, one frame a line).
record() {
  OMP_NUM_THREADS=2 timeout $((120 * mult)) "$perf" record -q -e cpu-clock:u -F 499 \
    --call-graph dwarf,16384 -o "$tmp/$1.data" -- \
    "$bin" --filter "$2" --sample-count 10 --warmup-time 10ms --max-time 1s \
    --format json --output "$tmp/$1.json" > "$tmp/$1.log" 2>&1 \
    || { fail "$1: the run under perf failed: $(tail -3 "$tmp/$1.log")"; return 1; }
  timeout $((120 * mult)) "$perf" script -i "$tmp/$1.data" -F tid,ip,sym > "$tmp/$1.txt" 2> "$tmp/$1.err" \
    || { fail "$1: perf script failed: $(tail -3 "$tmp/$1.err")"; return 1; }
}

# check NAME BODY MIN_THREADS: every sample whose stack holds BODY holds the
# root frame too, and at least MIN_THREADS threads have such samples.
check() {
  python3 - "$tmp/$1.txt" "$2" "$frame" "$3" <<'PY'
import collections, sys
path, body, frame, min_threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
samples, cur = [], None
for line in open(path, errors="replace"):
    if not line.strip():
        cur = None
        continue
    if not line.startswith("\t"):  # a sample's first line: its thread id
        cur = {"tid": int(line.split()[0]), "syms": []}
        samples.append(cur)
        continue
    if cur is not None:
        parts = line.split(None, 1)
        cur["syms"].append(parts[1].split(" (")[0].strip() if len(parts) > 1 else "")
if samples and max(len(s["syms"]) for s in samples) <= 1:
    sys.exit(3)  # a perf without DWARF unwinding: nothing to check here
in_body = collections.Counter()
without = collections.Counter()
for s in samples:
    if body in s["syms"]:
        in_body[s["tid"]] += 1
        if not any(sym.startswith(frame) for sym in s["syms"]):
            without[s["tid"]] += 1
print(f"{path}: {len(samples)} samples; inside {body}, by thread: {dict(in_body)}; "
      f"without {frame}: {dict(without)}")
bad = False
if without:
    example = next(s for s in samples if body in s["syms"]
                   and not any(sym.startswith(frame) for sym in s["syms"]))
    print(f"FAIL: samples inside {body} without {frame}, e.g. on thread {example['tid']}: "
          + " <- ".join(example["syms"]))
    bad = True
if len(in_body) < min_threads:
    print(f"FAIL: samples inside {body} on {len(in_body)} threads, expected {min_threads} "
          "(the team threads)")
    bad = True
sys.exit(1 if bad else 0)
PY
  local rc=$?
  if [ "$rc" -eq 3 ]; then echo "SKIP: this perf records no call chains (no DWARF unwinding)"; exit 77; fi
  [ "$rc" -eq 0 ] || fail "$1: see above"
}

if record harness '^stream_triad\[t=2\]$'; then
  check harness stream_triad 2
fi
if record caller '^triad_parallel_for\[t=2\]$'; then
  check caller triad_parallel_for 1
fi
[ "$fails" -eq 0 ] && echo "root_frame_perf: $frame is on the stack of every body sample"
exit $((fails > 0))
