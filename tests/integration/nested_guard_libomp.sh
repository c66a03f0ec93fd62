#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The nested-region guard and the caller-team width check on LLVM's libomp
# (docs/guide.md, "The nested-region warning"): benchmark bodies built by
# clang fork through __kmpc_fork_call, which the guard sees through its
# OMPT tool (lib/main/fork_guard_ompt.c). A clang-built benchmark binary
# linked with this build's libompbench_main (its main() installs the
# guard): the run says the guard sees all regions; a body that opens a
# region (in the benchmark file, and in a shared library built by clang) is
# warned at T=1 and T=2 and marked nested_region; a caller team's region
# of another width (num_threads(1)) is warned; a caller team's own region
# and a body that forks nothing are not. With OMP_TOOL=disabled the runtime
# starts no tool and the run says the guard misses Clang's regions. A
# phase region around unmarked loops (tests/region_app.c, guard installed)
# is named by its teams' width through the same tool.
# Skipped (77) with a line when clang or libomp is not installed.
script_bound=300
. "$(dirname "$0")/lib.sh" "$@"
unset OMP_PLACES OMP_PROC_BIND OMP_NUM_THREADS OMP_TOOL OMP_TOOL_LIBRARIES

if ! command -v clang > /dev/null || ! echo 'int main(void){return 0;}' \
     | timeout 60 clang -fopenmp=libomp -x c - -o "$tmp/probe" 2> /dev/null; then
  echo "clang with libomp is not installed (Debian: clang, libomp-dev): skipped"
  exit 77
fi
[ -e "$build/libompbench_main.a" ] && [ -e "$build/libompbench.a" ] \
  || { echo "the static libompbench and libompbench_main are not built: skipped"; exit 77; }

flags="-std=c11 -O2 -fopenmp=libomp -Wall -Wextra -Werror -I$src/include"
deps="$(pkg-config --libs hwloc jansson) -lm -ldl -lpthread"
# A sanitizer build's library calls gcc's ASan and UBSan runtimes: those,
# first on the line, rather than clang's own.
asan=""
[ -n "${OMPB_SANITIZE_FLAGS:-}" ] && asan="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"

cat > "$tmp/kernel.c" <<'C'
void shared_kernel(void);
void shared_kernel(void)
{
    int sink = 0;
#pragma omp parallel reduction(+ : sink)
    sink += 1;
    __asm__ volatile("" : : "r"(sink));
}
C
cat > "$tmp/nest.c" <<'C'
#include <ompbench.h>

void shared_kernel(void);

static void local_kernel(void)
{
#pragma omp parallel
    ompb_clobber_memory();
}

static void narrow_kernel(void)
{
#pragma omp parallel num_threads(1)
    ompb_clobber_memory();
}

OMPB_BENCH(nested, OMPB_THREADS(1, 2)) {
    OMPB_ITER(state) { local_kernel(); }
}
OMPB_BENCH(nested_lib, OMPB_THREADS(1, 2)) {
    OMPB_ITER(state) { shared_kernel(); }
}
OMPB_BENCH(caller, OMPB_THREADS(2), .team = OMPB_TEAM_CALLER) {
    OMPB_ITER(state) { local_kernel(); shared_kernel(); }
}
OMPB_BENCH(caller_narrow, OMPB_THREADS(2), .team = OMPB_TEAM_CALLER) {
    OMPB_ITER(state) { narrow_kernel(); }
}
OMPB_BENCH(plain, OMPB_THREADS(2)) {
    OMPB_ITER(state) { ompb_clobber_memory(); }
}
C
timeout 120 clang $flags -fPIC -shared "$tmp/kernel.c" -o "$tmp/libkernel.so" 2> "$tmp/cc.log" \
  || { fail "libkernel.so: $(cat "$tmp/cc.log")"; exit 1; }
timeout 120 clang $flags $asan "$tmp/nest.c" -L"$tmp" -lkernel -Wl,-rpath,"$tmp" \
  "$build/libompbench_main.a" "$build/libompbench.a" $deps -o "$tmp/nest" 2> "$tmp/cc.log" \
  || { fail "link: $(cat "$tmp/cc.log")"; exit 1; }
# ldd into a file, then grep: `ldd | grep -q` under pipefail fails when
# grep exits at its match while ldd still writes (SIGPIPE).
ldd "$tmp/nest" > "$tmp/ldd.txt" 2>&1
grep -q "libomp.so" "$tmp/ldd.txt" || { fail "not linked with libomp: $(cat "$tmp/ldd.txt")"; exit 1; }
grep -q "libgomp" "$tmp/ldd.txt" && fail "libgomp loaded beside libomp: $(cat "$tmp/ldd.txt")"

timeout 120 "$tmp/nest" --test --format json --output "$tmp/nest.json" 2> "$tmp/nest.err" \
  || { fail "run failed: $(cat "$tmp/nest.err")"; exit 1; }
python3 - "$tmp/nest.json" "$tmp/nest.err" <<'PY' || fail "see above"
import json, sys
doc = json.load(open(sys.argv[1]))
err = open(sys.argv[2]).read()
text = ("opens a nested parallel region inside the round; declare it with .team = "
        "OMPB_TEAM_CALLER to benchmark code that forks its own team")
nested = ["nested[t=1]", "nested[t=2]", "nested_lib[t=1]", "nested_lib[t=2]"]
want = ["%s: %s" % (n, text) for n in nested]
warnings = doc["context"]["ompbench"]["warnings"]
errors = []
guard = doc["context"]["ompbench"]["openmp"]["fork_guard"]
if guard != "all":
    errors.append("fork_guard %r, want 'all'" % guard)
got = [w for w in warnings if "nested parallel region" in w]
if sorted(got) != sorted(want):
    errors.append("context warnings %r, want %r" % (got, want))
for w in want:
    if err.count("ompbench: warning: " + w + "\n") != 1:
        errors.append("stderr lacks (once) %r" % w)
narrow = [w for w in warnings if w.startswith("caller_narrow[t=2]: ") and "asked for 1 threads" in w]
if len(narrow) != 1:
    errors.append("no width warning for caller_narrow: %r" % warnings)
if any(w.startswith("caller[t=2]: ") for w in warnings):
    errors.append("caller[t=2] warned: %r" % warnings)
for e in doc["benchmarks"]:
    if e["run_type"] != "iteration":
        continue
    o = e["ompbench"]
    marked = "nested_region" in o["marks"]
    if e["name"] in nested:
        ok = o["team"] == "harness" and o["nested_regions"] > 0 and marked
    elif e["name"].startswith("caller"):
        ok = o["team"] == "caller" and not marked
    else:
        ok = o["team"] == "harness" and o["nested_regions"] == 0 and not marked
    if not ok or e.get("error_occurred"):
        errors.append("entry %s: %r" % (e["name"], o))
if errors:
    sys.exit("FAIL: libomp:\n  " + "\n  ".join(errors))
print("nested_guard_libomp: guard %s, %d nested warnings, caller width warned" % (guard, len(got)))
PY

# OMPT off: the guard sees the GNU entry points only, and the run says so.
OMP_TOOL=disabled timeout 120 "$tmp/nest" --test --filter '^plain' --format json \
  --output "$tmp/off.json" > /dev/null 2> "$tmp/off.err" || fail "OMP_TOOL=disabled: run failed"
grep -qF "did not start the guard's OMPT tool" "$tmp/off.err" \
  || fail "OMP_TOOL=disabled: no warning: $(cat "$tmp/off.err")"
python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["context"]["ompbench"]["openmp"]["fork_guard"]
sys.exit(0 if g == "GNU entry points only" else "fork_guard %r" % g)' "$tmp/off.json" \
  || fail "OMP_TOOL=disabled: coverage"

# Phase regions on libomp (docs/guide.md, "Phase regions"): tests/region_app.c
# built by clang with the guard installed in its main(); its "timestep"
# region around unmarked parallel loops hears each team's width from the
# OMPT tool's parallel_begin: [t=1] at 1 thread and [t=2] at 2, one phase
# family, no note that nothing observes the forks.
timeout 120 clang $flags $asan -DREGION_APP_FORK_GUARD -I"$src/tests" "$src/tests/region_app.c" \
  "$build/libompbench_fork_guard.a" "$build/libompbench.a" $deps -o "$tmp/phase" \
  2> "$tmp/cc.log" || { fail "region_app: $(cat "$tmp/cc.log")"; exit 1; }
for t in 1 2; do
  OMP_NUM_THREADS=$t OMPB_REGIONS_OUTPUT="$tmp/phase$t.json" timeout 120 "$tmp/phase" phase-loops \
    > /dev/null 2> "$tmp/phase$t.err" || fail "region_app phase-loops at $t threads: $(cat "$tmp/phase$t.err")"
done
python3 - "$tmp" <<'PY' || fail "phase regions on libomp: see above"
import json, os, sys
tmp, errors = sys.argv[1], []
for t in (1, 2):
    doc = json.load(open(os.path.join(tmp, "phase%d.json" % t)))
    e = {b["name"]: b for b in doc["benchmarks"] if b["run_type"] == "iteration"}
    o = e.get("region:timestep[t=%d]" % t)
    if o is None:
        errors.append("at %d threads: no region:timestep[t=%d] (%r)" % (t, t, sorted(e)))
        continue
    ph = o["ompbench"]["region"].get("phase", {})
    if ph.get("width") != t or ph.get("team_widths") != [t, t] or ph.get("mixed"):
        errors.append("at %d threads: phase %r" % (t, ph))
    notes = [w for w in doc["context"]["ompbench"].get("warnings", []) if "would fork" in w]
    if notes:
        errors.append("at %d threads: the no-observer note with the guard: %r" % (t, notes))
if errors:
    sys.exit("FAIL: phase regions on libomp:\n  " + "\n  ".join(errors))
print("nested_guard_libomp: phase region:timestep[t=1] and [t=2] through OMPT")
PY
exit $((fails > 0))
