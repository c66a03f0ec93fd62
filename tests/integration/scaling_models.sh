#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The models of `ompbench scaling` (USL, Amdahl, Karp-Flatt) on synthetic
# sweeps against SciPy's curve_fit (tests/integration/scaling_models.py), the
# oversubscribed point left out and named, and the model drawn apart from the
# measurements in the SVG. The published datasets are checked in unit.usl.
# Usage: scaling_models.sh BUILD_DIR SOURCE_DIR
script_bound=600
. "$(dirname "$0")/lib.sh" "$@"
tool=$build/tools/ompbench
helper=$src/tests/integration/scaling_models.py
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import scipy.optimize' 2> /dev/null; then py=$p; break; fi
done
[ -n "$py" ] || { echo "SKIP: no python3 with scipy (python3-scipy)"; exit 77; }

timeout $((120 * mult)) "$py" "$helper" write "$tmp" || fail "writing the sweeps"
for f in sweep reps; do
  timeout $((120 * mult)) "$tool" scaling --format json --output "$tmp/$f.out.json" \
    "$tmp/$f.json" || fail "scaling --format json $f"
done
timeout $((300 * mult)) "$py" "$helper" check "$tmp" || fail "ompbench and curve_fit disagree"

timeout $((120 * mult)) "$tool" scaling --svg "$tmp/sweep.svg" "$tmp/sweep.json" > "$tmp/console" ||
  fail "scaling --svg"
grep -q "left out of the fits (oversubscribed): 64 threads" "$tmp/console" ||
  fail "the console does not name the point left out"
grep -q "^USL: sigma .*model prediction: peak at" "$tmp/console" || fail "no USL line"
grep -q "^Karp-Flatt serial fraction: 2 threads" "$tmp/console" || fail "no Karp-Flatt line"
xmllint --noout "$tmp/sweep.svg" || fail "the SVG is not well-formed"
for id in f0-time-model f0-efficiency-model; do
  grep -q "id=\"$id\" class=\"model\"" "$tmp/sweep.svg" || fail "no $id in the SVG"
done
grep -q 'class="prediction"' "$tmp/sweep.svg" || fail "no prediction zone in the SVG"
grep -q '<title>model prediction: fitted on 1-16 threads' "$tmp/sweep.svg" ||
  fail "the prediction zone does not name the widths fitted on"
[ "$fails" = 0 ] && echo "scaling models: all checks passed"
exit $((fails > 0))
