#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench convert --format console` of a result file whose counter names
# (a user counter, a --counters event) and marks hold ESC sequences, BEL,
# DEL and a C1 CSI (issue 30, item 4, defect 7): the console shows them
# escaped ("\x1b"), as every other tool does, and writes no control
# character but the newlines; the unknown mark code shows as "other". The file is the golden single.json with its
# names made hostile.
# Usage: convert_console_escapes.sh BUILD_DIR SOURCE_DIR
script_bound=60
. "$(dirname "$0")/lib.sh" "$@"
tool=$build/tools/ompbench
[ -x "$tool" ] || { echo "convert_console_escapes: no $tool; skipped"; exit 77; }
python3 - "$src/tests/data/report_golden/single.json" "$tmp/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad_user = "hi\x1b[2J\x07ts\x7f"
bad_event = "cyc\x1b]0;pwned\x07les\u009b31m"
for b in d["benchmarks"]:
    if "hits" in b:
        b[bad_user] = b.pop("hits")
    omp = b.get("ompbench", {})
    uc = omp.get("user_counters")
    if uc and "hits" in uc:
        uc[bad_user] = uc.pop("hits")
    c = omp.get("counters")
    if c and "cycles" in c.get("events", []):
        c["events"] = [bad_event if e == "cycles" else e for e in c["events"]]
        c["per_iteration"][bad_event] = c["per_iteration"].pop("cycles")
    if "marks" in omp:
        omp["marks"] = omp["marks"] + ["few\x1b[5mrounds"]
json.dump(d, open(sys.argv[2], "w"))
PY
timeout $((30 * mult)) "$tool" convert "$tmp/hostile.json" --format console > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "convert: exit status $rc ($(cat "$tmp/err"))"
python3 - "$tmp/out" <<'PY' || fail "raw control characters in the console output"
import sys
data = open(sys.argv[1], "rb").read()
raw = sorted({c for c in data if (c < 0x20 and c != 0x0a) or c == 0x7f})
text = data.decode("utf-8", "replace")
c1 = sorted({hex(ord(ch)) for ch in text if 0x80 <= ord(ch) < 0xa0})
if raw or c1:
    print("raw bytes:", [hex(c) for c in raw], "C1:", c1, file=sys.stderr)
    sys.exit(1)
# A mark code this ompbench does not know is "other" (the marks are the
# table's, lib/report/marks.h), never its text; the names are shown escaped.
if "[5mrounds" in text or "? other: " not in text:
    print("an unknown mark code was shown, or not as other", file=sys.stderr)
    sys.exit(1)
for want in ("hi\\x1b[2J\\x07ts\\x7f", "cyc\\x1b]0;pwned\\x07les\\xc2\\x9b31m"):
    if want not in text:
        print("not shown escaped:", want, file=sys.stderr)
        sys.exit(1)
PY
[ "$fails" -eq 0 ] && echo "convert_console_escapes: ok"
exit $((fails > 0))
