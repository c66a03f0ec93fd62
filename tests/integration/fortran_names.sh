#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fortran region names with an embedded NUL (issue 30, item 4, defect 9;
# tests/fortran_names.f90): the name is escaped (ab\x00cd), not cut: two
# regions, "ab\x00cd" with 2 instances and "ab" with 1.
# Usage: fortran_names.sh BUILD_DIR SOURCE_DIR
script_bound=60
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/fortran_names
[ -x "$app" ] || { echo "fortran_names: no $app (no Fortran compiler); skipped"; exit 77; }
OMPB_REGIONS_OUTPUT=$tmp/r.json timeout $((30 * mult)) "$app" > /dev/null 2> "$tmp/err" ||
  fail "exit status $? ($(cat "$tmp/err"))"
python3 - "$tmp/r.json" <<'PY' || fail "the NUL name was cut or merged"
import json, sys
d = json.load(open(sys.argv[1]))
got = {b["name"]: b["iterations"] for b in d["benchmarks"] if b["run_type"] == "iteration"}
want = {"region:ab\\x00cd[t=1]": 2, "region:ab[t=1]": 1}
if got != want:
    print("got", got, "want", want, file=sys.stderr)
    sys.exit(1)
PY
[ "$fails" -eq 0 ] && echo "fortran_names: ok"
exit $((fails > 0))
