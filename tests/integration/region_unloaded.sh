#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A region left open in a library unloaded before exit (issue 30, item 4,
# defect 5; region_app unloaded + region_plugin): the report at exit must
# not read the library's strings (its __FILE__ and the region's name, gone
# with it). The program exits normally, the region is reported as never
# ended, and its call site is named from a copy or as an unloaded library.
# Usage: region_unloaded.sh BUILD_DIR SOURCE_DIR
script_bound=120
. "$(dirname "$0")/lib.sh" "$@"
app=$build/tests/region_app
plugin=$build/tests/libregion_plugin.so
[ -x "$app" ] && [ -e "$plugin" ] || { echo "region_unloaded: no $app or $plugin; skipped"; exit 77; }
for out in "$tmp/r.json" ""; do
  OMPB_REGIONS_OUTPUT=$out timeout $((60 * mult)) "$app" unloaded "$plugin" > "$tmp/out" 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "output '${out:-stderr}': exit status $rc, want 0 ($(tail -3 "$tmp/err"))"
  grep -q 'plugin_open.*never ended' "$tmp/err" ||
    fail "output '${out:-stderr}': no message on the region left open: $(cat "$tmp/err")"
done
python3 - "$tmp/r.json" <<'PY' || fail "the report does not show the failed region"
import json, sys
d = json.load(open(sys.argv[1]))
e = [b for b in d["benchmarks"] if b["name"].startswith("region:plugin_open[")]
assert len(e) == 1, [b["name"] for b in d["benchmarks"]]
assert "never ended" in e[0].get("error_message", ""), e[0]
PY
[ "$fails" -eq 0 ] && echo "region_unloaded: ok"
exit $((fails > 0))
