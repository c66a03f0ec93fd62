#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A crash loses only what was running (issue 30, item 1), on
# tests/crash_fixture.c (crash[1] to crash[5], the fourth crashing):
# - SIGSEGV, SIGABRT and a stack overflow (on a team thread) in a body:
#   the process still dies of the signal
#   (WIFSIGNALED: the action is the default again) and dumps its core
#   (WCOREDUMP, where core_pattern writes a file and no sanitizer turns
#   cores off), after the report of crash[1-3], marked partial, with
#   crash[4] failed naming the signal and crash[5] not run; the journal is
#   gone once its report is out;
# - OMPB_CRASH_HANDLER=0: the signal is left alone (no report, the journal
#   stays, and convert reports it); a bad value is refused, exit 2;
# - SIGKILL: the journal stays, a new run refuses to overwrite it (exit 2),
#   and `ompbench convert` turns it into the report of crash[1-3], marked
#   partial, crash[4] failed "killed or lost while running" (its started
#   line has no record after it); a journal cut mid-record converts up to its last whole record
#   and says so; a malformed one is one line naming the file, exit 2;
# - --processes 2: each crashing child costs only its running repetition:
#   the repetitions its journal kept are in the report.
# Usage: crash_journal.sh BUILD_DIR SOURCE_DIR
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"

bin=$build/tests/crash_fixture
tool=$build/tools/ompbench
[ -x "$bin" ] && [ -x "$tool" ] || { echo "crash_fixture or ompbench not built: skipped"; exit 77; }
opts=(--sample-count 3 --warmup-time 0ns --min-time 100us --max-time 50ms)
# Sanitizer runtimes would take the crash signals over (report, exit 1):
# leave them to the run, as an ordinary build does.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:handle_sigbus=0:handle_abort=0:handle_sigfpe=0:handle_sigill=0"
export TMPDIR=$tmp

# run OUT [env...]: runs the fixture (crash[4] crashing) in $tmp/cores with
# no limit on core files, prints how it ended: "signal N" (WIFSIGNALED) or
# "exit N"; stderr in OUT.err; whether a core was dumped in OUT.core.
mkdir -p "$tmp/cores"
run() {
  local out=$1
  shift
  (cd "$tmp/cores" && env "$@" python3 - "$out.core" "$bin" "${opts[@]}" --format json \
     --output "$out" 2> "$out.err") <<'PY'
import os, resource, subprocess, sys
def unlimited():
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, preexec_fn=unlimited)
_, st = os.waitpid(p.pid, 0)
open(sys.argv[1], "w").write("core\n" if os.WIFSIGNALED(st) and os.WCOREDUMP(st) else "none\n")
print(f"signal {os.WTERMSIG(st)}" if os.WIFSIGNALED(st) else f"exit {os.WEXITSTATUS(st)}")
PY
  rm -f "$tmp"/cores/core*
}
# A core is expected where the kernel writes one to a file in the working
# directory, and the sanitizers do not turn cores off (ASan does).
core_expected=
case $(cat /proc/sys/kernel/core_pattern 2> /dev/null) in
  '|'* | /* | '') ;;
  *) [ -n "${OMPB_SANITIZE_FLAGS:-}" ] || core_expected=1 ;;
esac

# check_report FILE BY CRASH_TEXT NOT_RUN: crash[1-3] completed, partial by BY.
check_report() {
  python3 - "$@" <<'PY'
import json, sys
path, by, crash, not_run = sys.argv[1:5]
d = json.load(open(path))
ctx, runs = d["context"], [b for b in d["benchmarks"] if b.get("run_type") == "iteration"]
ok = {b["name"] for b in runs if not b.get("error_occurred")}
bad = {b["name"]: b.get("error_message", "") for b in runs if b.get("error_occurred")}
errs = []
if ctx.get("partial") is not True or ctx.get("interrupted_by") != by:
    errs.append(f"partial {ctx.get('partial')} by {ctx.get('interrupted_by')}, expected {by}")
if ok != {"crash[1]", "crash[2]", "crash[3]"}:
    errs.append(f"completed: {sorted(ok)}")
if crash and crash not in bad.get("crash[4]", ""):
    errs.append(f"crash[4]'s error: {bad.get('crash[4]')!r}, expected {crash!r}")
if ctx.get("not_run") != not_run.split(","):
    errs.append(f"not_run {ctx.get('not_run')}, expected {not_run}")
print("; ".join(errs))
PY
}

for case in "segv 11 SIGSEGV" "abort 6 SIGABRT" "overflow 11 SIGSEGV"; do
  set -- $case
  how=$1 sig=$2 name=$3 out=$tmp/$how.json
  # A stack overflow on team thread 1 (the fixture's): its handler runs on
  # the thread's alternate signal stack.
  threads=()
  [ "$how" != overflow ] || threads=(OMP_NUM_THREADS=2)
  got=$(run "$out" OMPB_CRASH_AT=4 OMPB_CRASH_HOW=$how "${threads[@]}")
  [ "$got" = "signal $sig" ] || fail "$how: the process ended with '$got', expected 'signal $sig'"
  [ -z "$core_expected" ] || [ "$(cat "$out.core")" = core ] || fail "$how: no core was dumped"
  [ -f "$out" ] || { fail "$how: no report written"; cat "$out.err" >&2; continue; }
  msg=$(check_report "$out" "$name" "crashed with $name" "crash[5]")
  [ -z "$msg" ] || fail "$how: $msg"
  grep -q "crash\[4\]: crashed with $name" "$out.err" || fail "$how: stderr does not name crash[4] and $name"
  [ ! -e "$out.journal" ] || fail "$how: the journal outlived its report"
done

# The handler turned off: the signal alone, the journal left for convert.
out=$tmp/off.json
got=$(run "$out" OMPB_CRASH_AT=4 OMPB_CRASH_HOW=segv OMPB_CRASH_HANDLER=0)
[ "$got" = "signal 11" ] || fail "OMPB_CRASH_HANDLER=0: ended with '$got', expected 'signal 11'"
[ ! -e "$out" ] && [ -f "$out.journal" ] || fail "OMPB_CRASH_HANDLER=0: expected no report and a journal"
got=$(run "$tmp/badenv.json" OMPB_CRASH_HANDLER=yes)
[ "$got" = "exit 2" ] && [ "$(wc -l < "$tmp/badenv.json.err")" -eq 1 ] &&
  grep -q "OMPB_CRASH_HANDLER: invalid value 'yes'" "$tmp/badenv.json.err" ||
  fail "OMPB_CRASH_HANDLER=yes: '$got', $(cat "$tmp/badenv.json.err")"

# SIGKILL (what the OOM killer sends): the journal is all that is left.
out=$tmp/kill.json
got=$(run "$out" OMPB_CRASH_AT=4 OMPB_CRASH_HOW=kill)
[ "$got" = "signal 9" ] || fail "kill: ended with '$got', expected 'signal 9'"
[ -f "$out.journal" ] || fail "kill: no journal left"
got=$(run "$out")
[ "$got" = "exit 2" ] && grep -q "kill.json.journal: a journal left by a run" "$out.err" ||
  fail "a run over a journal left behind: '$got', $(cat "$out.err")"
if "$tool" convert "$out.journal" --format json --output "$tmp/kill.conv.json" 2> "$tmp/conv.err"; then
  msg=$(check_report "$tmp/kill.conv.json" killed "killed or lost while running" "crash[5]")
  [ -z "$msg" ] || fail "convert of a SIGKILL's journal: $msg"
  grep -q "crash\[4\]: killed or lost while running" "$tmp/conv.err" ||
    fail "convert of a SIGKILL's journal does not name crash[4]: $(cat "$tmp/conv.err")"
else
  fail "convert of a SIGKILL's journal failed: $(cat "$tmp/conv.err")"
fi
[ -f "$out.journal" ] || fail "convert removed its input"

# Cut mid-record: the whole records before the cut are read, and it says so
# (the last line, crash[4]'s started line, dropped; then 40 bytes of crash[3]).
head -n -1 "$out.journal" > "$tmp/cut.journal"
size=$(stat -c %s "$tmp/cut.journal")
truncate -s $((size - 40)) "$tmp/cut.journal"
if "$tool" convert "$tmp/cut.journal" --format json --output "$tmp/cut.json" 2> "$tmp/cut.err"; then
  grep -q "cut mid-write; the 2 whole records" "$tmp/cut.err" || fail "a cut journal: not said: $(cat "$tmp/cut.err")"
  # crash[3]'s record is cut: its started line names it as the one running.
  n=$(python3 -c "import json,sys; r=[b for b in json.load(open(sys.argv[1]))['benchmarks'] if b.get('run_type') == 'iteration']; print(sum(1 for b in r if not b.get('error_occurred')), [b['name'] for b in r if 'killed or lost while running' in b.get('error_message', '')])" "$tmp/cut.json")
  [ "$n" = "2 ['crash[3]']" ] || fail "a cut journal: $n (completed, lost), expected 2 ['crash[3]']"
else
  fail "convert of a cut journal failed: $(cat "$tmp/cut.err")"
fi

# Malformed: one line naming the file and what is wrong, exit 2.
{ head -n 1 "$out.journal"; echo '{"record":{"instance":0}}'; } > "$tmp/bad.journal"
printf '{"ompbench_journal":7}\n' > "$tmp/badhead.journal"
for f in bad badhead; do
  "$tool" convert "$tmp/$f.journal" --format json > /dev/null 2> "$tmp/$f.err"
  st=$?
  lines=$(grep -vc "warning:" "$tmp/$f.err")
  [ $st = 2 ] && [ "$lines" = 1 ] && grep -v "warning:" "$tmp/$f.err" | grep -q "$f.journal: line" ||
    fail "convert of $f.journal: status $st, $(cat "$tmp/$f.err")"
done

# --processes: a crashing child hands over what its journal kept.
out=$tmp/proc.json
got=$(env OMPB_CRASH_AT=4 OMPB_CRASH_HOW=segv "$bin" "${opts[@]}" --processes 2 --seed 1 --format json \
      --output "$out" 2> "$out.err"; echo "exit $?")
[ "$got" = "exit 1" ] || fail "--processes: '$got', expected 'exit 1'"
kept=$(sed -n 's/.*was killed by signal 11 .* in crash\[4\] and its journal kept \([0-9]*\) .*/\1/p' "$out.err")
[ "$(echo "$kept" | wc -w)" = 2 ] || fail "--processes: stderr does not say what each child kept: $(cat "$out.err")"
python3 - "$out" $kept <<'PY' || fail "--processes: the report does not hold what the journals kept"
import json, sys
d = json.load(open(sys.argv[1]))
runs = [b for b in d["benchmarks"] if b.get("run_type") == "iteration"]
ok = [b for b in runs if not b.get("error_occurred")]
crashed = [b for b in runs if b["name"] == "crash[4]" and "crashed with SIGSEGV" in b.get("error_message", "")]
want = sum(int(k) for k in sys.argv[2:])
sys.exit(0 if want > 0 and len(ok) == want and len(crashed) == 2 else 1)
PY

[ "$fails" -eq 0 ]
