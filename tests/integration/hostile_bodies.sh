#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Benchmark code that works against the report (issue 14, item 11):
# - a body that switches the process to a comma-decimal locale with
#   setlocale(): the CSV and JSON numbers stay C-formatted (a de_DE.UTF-8
#   locale is generated with localedef into a temporary LOCPATH; without
#   locale sources that part is skipped, saying so);
# - ompb_set_bytes values whose team sum passes 2^64: the instance fails with
#   a message instead of reporting a wrapped throughput;
# - a benchmark name with control characters: the console report shows them
#   escaped, never sends them to the terminal.
# Usage: hostile_bodies.sh BUILD_DIR SOURCE_DIR
. "$(dirname "$0")/lib.sh" "$@"

cat > "$tmp/hostile.c" <<'EOF'
#include <ompbench.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Switches the whole process to $OMPB_TEST_LOCALE, as a library a body
 * calls might, and writes the decimal point it got to $OMPB_TEST_PROBE. */
static int switch_locale(ompb_state *state)
{
    (void)state;
    const char *name = getenv("OMPB_TEST_LOCALE"), *probe = getenv("OMPB_TEST_PROBE");
    if (name && setlocale(LC_ALL, name) && probe) {
        FILE *f = fopen(probe, "w");
        if (f) {
            fputs(localeconv()->decimal_point, f);
            fclose(f);
        }
    }
    return 0;
}

static void spin(ompb_state *state)
{
    ompb_set_items(state, 3);
    OMPB_ITER(state) {
        ompb_black_box_u64(ompb_opaque_u64(7) * 3);
    }
}

static const ompb_benchmark localized = {
    .name = "localized", .file = "hostile.c", .fn = spin, .setup = switch_locale};

OMPB_BENCH(bytes_overflow, OMPB_THREADS(2)) {
    ompb_set_bytes(state, UINT64_MAX / 2 + 1);
    OMPB_ITER(state) {
        ompb_black_box_u64(ompb_opaque_u64(1));
    }
}

static const ompb_benchmark controls = {
    .name = "esc\x1b[2J\x07name\x1b]0;title\x07", .file = "hostile.c", .fn = spin};

__attribute__((constructor)) static void register_more(void)
{
    ompb_register(&localized);
    ompb_register(&controls);
}
EOF
if [ -e "$build/libompbench.a" ]; then
  libs="$build/libompbench_main.a $build/libompbench.a $(pkg-config --libs hwloc jansson) -lm"
else
  libs="-L$build -Wl,-rpath,$build -lompbench_main -lompbench"
fi
cc -std=c11 -fopenmp ${OMPB_SANITIZE_FLAGS:-} -Wall -Wextra -Werror -I"$src/include" \
  "$tmp/hostile.c" $libs -o "$tmp/hostile" 2> "$tmp/cc.log" || { echo "FAIL: compile:"; cat "$tmp/cc.log"; exit 1; }
bin=$tmp/hostile
short=(--sample-count 5 --warmup-time 0ns --min-time 100us --max-time 200ms)

# ---- a comma-decimal locale set by benchmark code ------------------------
mkdir "$tmp/locale"
if localedef -i de_DE -f UTF-8 "$tmp/locale/de_DE.UTF-8" > "$tmp/localedef.log" 2>&1; then
  for fmt in csv json; do
    rm -f "$tmp/probe"
    LOCPATH="$tmp/locale" OMPB_TEST_LOCALE=de_DE.UTF-8 OMPB_TEST_PROBE="$tmp/probe" \
      timeout 60 "$bin" --filter '^localized$' "${short[@]}" --format $fmt --output "$tmp/l.$fmt" \
      2> "$tmp/err" || fail "localized $fmt: exit $?"
    [ "$(cat "$tmp/probe" 2>/dev/null)" = "," ] || fail "the body's locale has no decimal comma; test broken"
  done
  python3 - "$tmp/l.csv" "$tmp/l.json" <<'PY' || fails=$((fails + 1))
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
header, row = rows[0], rows[1]
errors = []
if len(row) != len(header):
    errors.append("CSV row has %d fields, header %d: %r" % (len(row), len(header), row))
for key in ("median_ns", "mean_ns", "mean_imbalance", "items_per_second"):
    try:
        float(dict(zip(header, row))[key])
    except (KeyError, ValueError) as e:
        errors.append("CSV %s: %r" % (key, e))
try:
    doc = json.load(open(sys.argv[2]))
    if not any(b["name"] == "localized" for b in doc["benchmarks"]):
        errors.append("JSON without the instance")
except ValueError as e:
    errors.append("JSON does not parse: %s" % e)
for e in errors:
    print("FAIL: locale:", e)
sys.exit(1 if errors else 0)
PY
else
  echo "hostile_bodies: note: localedef cannot make de_DE.UTF-8 here (no locale sources); locale part skipped"
fi

# ---- throughput counters that overflow -------------------------------------
timeout 60 "$bin" --filter '^bytes_overflow' "${short[@]}" --format json --output "$tmp/o.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "bytes_overflow: exit $rc, want 1"
grep -q "add up to more than 2^64" "$tmp/err" || { fail "bytes_overflow: no message"; cat "$tmp/err"; }
python3 -c '
import json, sys
b = [b for b in json.load(open(sys.argv[1]))["benchmarks"] if b["name"].startswith("bytes_overflow")][0]
sys.exit(0 if b.get("error_occurred") and "bytes_per_second" not in b else "reported: %r" % b)' "$tmp/o.json" ||
  fail "bytes_overflow: a throughput was reported"

# ---- control characters in a name ------------------------------------------
timeout 60 "$bin" --filter '^esc' "${short[@]}" > "$tmp/console" 2> "$tmp/err" || fail "controls: exit $?"
if grep -q $'\x1b\|\x07' "$tmp/console"; then
  fail "controls: raw control characters on the console"
fi
grep -qF 'esc\x1b[2J\x07name\x1b]0;title\x07' "$tmp/console" || { fail "controls: name not shown escaped"; cat -v "$tmp/console"; }

[ $fails -eq 0 ] && echo "hostile_bodies: locale, counters and names handled"
[ $fails -eq 0 ]
