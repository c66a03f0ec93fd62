#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Region markers in whole processes (tests/region_app.c): the report at
# exit, regions never ended at exit (one message naming region, thread and
# call site; that entry failed, the others reported), the first call before
# any parallel region, bad settings (a warning and regions off in an
# application, exit 2 in a benchmark binary; nothing written),
# OMPB_REGIONS=0, %p, a report that cannot be written at exit, fork, and
# -DOMPB_REGIONS_DISABLE (no reference to the library, arguments not
# evaluated).
set -uo pipefail
build=$1 src=$2
app="$build/tests/region_app"
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT
fail=0
run() { timeout 60 "$@"; }
bad() { echo "FAIL: $*"; fail=1; }

# The JSON checks: python3 JSON FILE, then lines "name instances" or
# "name failed TEXT" read from stdin.
check_json() {
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
found = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
errors = []
# Regions measure no involuntary switches and count no perf events: absent,
# never a made-up 0.
for b in found.values():
    if "involuntary_switches" in b.get("ompbench", {}) or "counters" in b.get("ompbench", {}):
        errors.append("%s: involuntary_switches or counters in a region entry" % b["name"])
for line in sys.stdin.read().splitlines():
    name, what = line.split(" ", 1)
    b = found.get(name)
    if b is None:
        errors.append("%s: missing (entries: %s)" % (name, sorted(found)))
    elif what.startswith("failed "):
        text = what[len("failed "):]
        if not b.get("error_occurred") or text not in b.get("error_message", ""):
            errors.append("%s: want failed with %r, got %r" % (name, text, b.get("error_message")))
    elif b.get("error_occurred") or b["ompbench"]["region"]["instances"] != int(what):
        errors.append("%s: want %s instances, got %r (%r)" % (name, what,
                      b["ompbench"]["region"]["instances"], b.get("error_message")))
for e in errors:
    print("FAIL:", e)
sys.exit(1 if errors else 0)
PY
}

# First call in serial code, before the process ever ran a parallel region.
OMPB_REGIONS_OUTPUT="$tmp/first.json" run "$app" first-use > "$tmp/out" 2> "$tmp/err" \
  || bad "first-use exited $?: $(cat "$tmp/err")"
check_json "$tmp/first.json" <<'EOF' || fail=1
region:setup[t=1] 1
region:par[t=2] 10
EOF

# The markers' timestamp source is named in the report's context (JSON) and
# header (console): the TSC or clock_gettime with the reason, never absent.
python3 - "$tmp/first.json" <<'PY' || bad "region_clock missing from the JSON context"
import json, sys
c = json.load(open(sys.argv[1]))["context"]["ompbench"]["region_clock"]
sys.exit(0 if c.startswith(("invariant TSC (", "clock_gettime(CLOCK_MONOTONIC) (TSC not used: "))
         else 1)
PY
OMPB_REGIONS_CLOCK=clock_gettime OMPB_REGIONS_OUTPUT=- OMPB_REGIONS_FORMAT=console \
  run "$app" first-use > "$tmp/out" 2> "$tmp/err" || bad "OMPB_REGIONS_CLOCK=clock_gettime exited $?"
grep -qF "regions:    clock: clock_gettime(CLOCK_MONOTONIC) (TSC not used: OMPB_REGIONS_CLOCK=clock_gettime)" \
  "$tmp/out" || { bad "the console header does not name the forced clock:"; head -20 "$tmp/out"; }

# Never ended at exit: the main thread's "leak" and thread 1's "leak_team".
OMPB_REGIONS_OUTPUT="$tmp/leak.json" run "$app" never-ended > "$tmp/out" 2> "$tmp/err" \
  || bad "never-ended exited $?"
check_json "$tmp/leak.json" <<'EOF' || fail=1
region:ok[t=1] 3
region:leak[t=1] failed began at tests/region_app.c:
region:leak[t=1] failed never ended (still open at process exit)
region:leak_team[t=2] failed by thread 1 of a team of 2
region:leak_team[t=2] failed never ended
EOF
[ "$(grep -c '^ompbench: region:leak\[t=1\]: began at tests/region_app.c:[0-9]* by OS thread [0-9]* (outside any OpenMP team) and never ended' "$tmp/err")" = 1 ] \
  || { bad "never-ended: one message naming region, call site and thread expected on stderr:"; cat "$tmp/err"; }

# An explicit report, then nothing: the exit writes nothing more; then two
# more instances: the exit writes the report again, with them.
OMPB_REGIONS_OUTPUT=- OMPB_REGIONS_FORMAT=csv run "$app" report 0 > "$tmp/out" 2> "$tmp/err" \
  || bad "report 0 exited $?"
[ "$(grep -c '^name,uri,threads' "$tmp/out")" = 1 ] || { bad "report 0: one CSV report expected:"; cat "$tmp/out"; }
OMPB_REGIONS_OUTPUT=- OMPB_REGIONS_FORMAT=csv run "$app" report 2 > "$tmp/out" 2> "$tmp/err" \
  || bad "report 2 exited $?"
grep '^"region:step' "$tmp/out" | cut -d, -f6 | tr '\n' ' ' | grep -qx '2 4 ' \
  || { bad "report 2: reports with 2 then 4 instances expected:"; cat "$tmp/out"; }

# A bad setting never stops an application (no constructor exits): one
# warning naming the value and what is accepted, regions off, main() runs to
# the end (exit 0), nothing written.
expect_warned() { # VAR=VALUE WANTED_TEXT
  env "$1" timeout 60 "$app" first-use > "$tmp/out" 2> "$tmp/err"
  local st=$?
  [ "$st" = 0 ] || bad "$1: exit status $st, want 0"
  grep -q '^main$' "$tmp/out" || bad "$1: main() did not run"
  [ "$(grep -cF "ompbench: warning: $2" "$tmp/err")" = 1 ] \
    || { bad "$1: no one warning '$2':"; cat "$tmp/err"; }
  grep -qF "region markers are off" "$tmp/err" || bad "$1: the warning does not say regions are off"
  grep -q '^region:' "$tmp/err" && bad "$1: regions were reported"
}
expect_warned OMPB_REGIONS_FORMAT=xml "OMPB_REGIONS_FORMAT: invalid value 'xml' (accepted: console, json, csv)"
expect_warned OMPB_REGIONS=yes "OMPB_REGIONS: invalid value 'yes' (accepted: 0, 1)"
expect_warned OMPB_REGIONS_CLOCK=rdtsc "OMPB_REGIONS_CLOCK: invalid value 'rdtsc' (accepted: auto, clock_gettime)"
expect_warned OMPB_REGIONS_OUTPUT="$tmp/no/such/dir/r.json" "OMPB_REGIONS_OUTPUT: cannot write '$tmp/no/such/dir/r.json'"
[ -e "$tmp/no" ] && bad "a refused output path left something behind"

# A benchmark binary refuses them: exit 2 before any benchmark, one line
# naming the value and what is accepted, no output file.
bench="$build/benches/examples"
expect_refused() { # VAR=VALUE WANTED_TEXT
  env OMPB_RUNNER_CTL_FIFO="$tmp/no-ctl" OMPB_RUNNER_ACK_FIFO="$tmp/no-ack" "$1" \
    timeout 60 "$bench" --test --output "$tmp/bench.json" > "$tmp/out" 2> "$tmp/err"
  local st=$?
  [ "$st" = 2 ] || bad "benchmark $1: exit status $st, want 2"
  grep -qF "$bench: $2" "$tmp/err" || { bad "benchmark $1: message lacks '$2':"; cat "$tmp/err"; }
  [ -e "$tmp/bench.json" ] && bad "benchmark $1: wrote its output"
  rm -f "$tmp/bench.json"
}
expect_refused OMPB_REGIONS_FORMAT=xml "OMPB_REGIONS_FORMAT: invalid value 'xml' (accepted: console, json, csv)"
expect_refused OMPB_REGIONS=yes "OMPB_REGIONS: invalid value 'yes' (accepted: 0, 1)"
expect_refused OMPB_REGIONS_CLOCK=rdtsc "OMPB_REGIONS_CLOCK: invalid value 'rdtsc' (accepted: auto, clock_gettime)"

# OMPB_REGIONS=0: no report at all.
OMPB_REGIONS=0 OMPB_REGIONS_OUTPUT="$tmp/off.json" run "$app" first-use > "$tmp/out" 2> "$tmp/err" \
  || bad "OMPB_REGIONS=0 exited $?"
[ -e "$tmp/off.json" ] && bad "OMPB_REGIONS=0 wrote a report"
[ -s "$tmp/err" ] && { bad "OMPB_REGIONS=0 printed:"; cat "$tmp/err"; }
# ... and an explicit ompb_regions_report() writes nothing either (exit 0).
OMPB_REGIONS=0 OMPB_REGIONS_OUTPUT="$tmp/off2.json" run "$app" report 1 > "$tmp/out" 2> "$tmp/err" \
  || bad "OMPB_REGIONS=0 report exited $?"
[ -e "$tmp/off2.json" ] && bad "OMPB_REGIONS=0: ompb_regions_report() wrote a report"
[ -s "$tmp/err" ] && { bad "OMPB_REGIONS=0 report printed:"; cat "$tmp/err"; }

# %p is the process id; the forked child reports nothing of its own.
OMPB_REGIONS_OUTPUT="$tmp/r-%p.json" run "$app" fork > "$tmp/out" 2> "$tmp/err" || bad "fork exited $?"
files=("$tmp"/r-*.json)
[ "${#files[@]}" = 1 ] && [ -e "${files[0]}" ] || bad "fork: one report expected, got: ${files[*]}"
check_json "${files[0]}" <<< "region:step[t=1] 2" || fail=1
[[ "${files[0]}" =~ r-[0-9]+\.json$ ]] || bad "%p not expanded: ${files[0]}"

# The output directory vanishes before exit: the report is not lost, it
# goes to stderr.
mkdir "$tmp/gone"
OMPB_REGIONS_OUTPUT="$tmp/gone/r.json" run "$app" lose-dir "$tmp/gone" > "$tmp/out" 2> "$tmp/err" \
  || bad "lose-dir exited $?"
grep -q 'the region report follows on standard error instead' "$tmp/err" \
  && grep -q '^region:step\[t=1\] ' "$tmp/err" || { bad "lose-dir: report not on stderr:"; cat "$tmp/err"; }

# -DOMPB_REGIONS_DISABLE: the macros are nothing, arguments not evaluated
# yet still "used" (a -Werror build with a variable holding the name
# compiles), no symbol of the library referenced (it links without it).
cat > "$tmp/off.c" <<'EOF'
#include <ompbench/region.h>
#include <stdio.h>
int main(void)
{
    int evaluated = 0;
    const char *name = "named"; /* used only as a region name: no unused-variable warning */
    ompb_region_begin((evaluated++, "x"));
    ompb_region_end((evaluated++, "x"));
    ompb_region_begin(name);
    ompb_region_end(name);
    printf("%d %d\n", evaluated, ompb_regions_report(NULL, NULL));
    return 0;
}
EOF
# Both compilers when present: their warnings differ (clang's
# -Wsizeof-array-decay, gcc's -Wunused-variable).
for c in cc clang; do
  command -v "$c" > /dev/null || continue
  if "$c" -std=c11 -O2 -Wall -Wextra -Werror -DOMPB_REGIONS_DISABLE -I"$src/include" "$tmp/off.c" \
       -o "$tmp/off" 2> "$tmp/cc.log"; then
    [ "$("$tmp/off")" = "0 0" ] || bad "OMPB_REGIONS_DISABLE ($c): arguments evaluated or report ran"
    nm "$tmp/off" | grep -q ompb_region && bad "OMPB_REGIONS_DISABLE ($c): the binary references the library"
  else
    bad "OMPB_REGIONS_DISABLE ($c): does not compile with -Wall -Wextra -Werror without the library:"
    cat "$tmp/cc.log"
  fi
done
exit $fail
