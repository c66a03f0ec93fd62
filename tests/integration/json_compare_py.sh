#!/usr/bin/env bash
# Our JSON is Google Benchmark JSON: its compare.py (Debian libbenchmark-tools)
# reads two of our result files and reports every benchmark; the file also
# carries the raw rounds.
set -euo pipefail
build=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$build/benches/examples"
args=(--filter '^(count_set_bits|fibonacci_iterative|stream_triad\[t=2\])' --sample-count 5 --warmup-time 0s --min-time 100us --max-time 300ms --format json)
"$bin" "${args[@]}" --output "$tmp/a.json"
"$bin" "${args[@]}" --output "$tmp/b.json"
/usr/bin/python3 /usr/share/benchmark/compare.py --no-color benchmarks "$tmp/a.json" "$tmp/b.json" > "$tmp/cmp.txt"
for name in 'count_set_bits\[42\]' 'fibonacci_iterative\[20\]' 'stream_triad\[t=2\]'; do
  grep -q "^$name " "$tmp/cmp.txt" || { echo "FAIL: compare.py output lacks $name"; cat "$tmp/cmp.txt"; exit 1; }
done
/usr/bin/python3 - "$tmp/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
its = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert its, "no iteration entries"
for b in its:
    o = b["ompbench"]
    assert len(o["samples"]["makespan_ns"]) == o["rounds"] >= 1, b["name"]
    assert b["iterations"] == o["rounds"] * o["sample_size"], b["name"]
    assert all(len(r) == b["threads"] for r in o["samples"]["busy_ns"]), b["name"]
    assert o["stats"]["min_ns"] <= o["stats"]["median_ns"] <= o["stats"]["max_ns"], b["name"]
for key in ("date", "host_name", "executable", "num_cpus", "caches", "library_build_type"):
    assert key in d["context"], key
PY
# With --repetitions, compare.py finds Google Benchmark's repetition shape:
# it runs its U test over the repetitions and reads the aggregates.
"$bin" "${args[@]}" --repetitions 3 --output "$tmp/ra.json"
"$bin" "${args[@]}" --repetitions 3 --output "$tmp/rb.json"
/usr/bin/python3 /usr/share/benchmark/compare.py --no-color benchmarks "$tmp/ra.json" "$tmp/rb.json" > "$tmp/cmp.txt"
for name in 'count_set_bits\[42\]_pvalue .*U Test, Repetitions: 3 vs 3' 'count_set_bits\[42\]_median ' \
            'stream_triad\[t=2\]_mean '; do
  grep -q "^$name" "$tmp/cmp.txt" || { echo "FAIL: compare.py output lacks $name"; cat "$tmp/cmp.txt"; exit 1; }
done
# Issue 19: a region report is the same format, and compare.py reads it
# too; every time Google Benchmark's readers do arithmetic on is a number.
export OMPB_RUNNER_CTL_FIFO=$tmp/no-runner.ctl OMPB_RUNNER_ACK_FIFO=$tmp/no-runner.ack
for f in ga gb; do
  OMPB_REGIONS_FORMAT=json OMPB_REGIONS_OUTPUT="$tmp/$f.json" timeout 60 "$build/tests/region_app" \
    first-use > /dev/null 2>&1
done
/usr/bin/python3 - "$tmp/ga.json" "$tmp/a.json" "$tmp/ra.json" <<'PY'
import json, numbers, sys
for path in sys.argv[1:]:
    for b in json.load(open(path))["benchmarks"]:
        for key in ("real_time", "cpu_time", "iterations"):
            assert isinstance(b.get(key), numbers.Number), (path, b["name"], key, b.get(key))
PY
timeout 60 /usr/bin/python3 /usr/share/benchmark/compare.py --no-color benchmarks "$tmp/ga.json" "$tmp/gb.json" \
  > "$tmp/cmp.txt" 2> "$tmp/cmp.err" || { echo "FAIL: compare.py on region reports:"; cat "$tmp/cmp.err"; exit 1; }
for name in 'region:setup\[t=1\] ' 'region:par\[t=2\]_median '; do
  grep -q "^$name" "$tmp/cmp.txt" || { echo "FAIL: compare.py output lacks $name"; cat "$tmp/cmp.txt"; exit 1; }
done
# Region entries carry cpu_time 0 (CPU time is not measured for regions)
# only because compare.py cannot read a file without the key
# (docs/json.md): the same reports without it must still fail there.
/usr/bin/python3 - "$tmp/ga.json" "$tmp/gb.json" <<'PY'
import json, sys
for path in sys.argv[1:]:
    d = json.load(open(path))
    for b in d["benchmarks"]:
        b.pop("cpu_time", None)
    json.dump(d, open(path + ".nocpu", "w"))
PY
if timeout 60 /usr/bin/python3 /usr/share/benchmark/compare.py --no-color benchmarks "$tmp/ga.json.nocpu" \
     "$tmp/gb.json.nocpu" > "$tmp/cmp.txt" 2>&1 && grep -q '^region:par\[t=2\] ' "$tmp/cmp.txt"; then
  echo "FAIL: compare.py now reads region entries without cpu_time: drop the key from them (docs/json.md)"
  exit 1
fi
# Issue 23: user counters are flat keys of the run object, where compare.py
# and other Google Benchmark readers look for counters; it reads them.
for f in ua ub; do
  timeout 120 "$build/tests/ucounter_fixture" --filter '^(lookups|per_item|total)' --threads 2 \
    --sample-count 3 --warmup-time 0s --max-time 200ms --format json --output "$tmp/$f.json" 2> /dev/null
done
timeout 60 /usr/bin/python3 /usr/share/benchmark/compare.py --no-color benchmarks "$tmp/ua.json" "$tmp/ub.json" \
  > "$tmp/cmp.txt" 2> "$tmp/cmp.err" || { echo "FAIL: compare.py on user counters:"; cat "$tmp/cmp.err"; exit 1; }
grep -q '^lookups\[t=2\] ' "$tmp/cmp.txt" || { echo "FAIL: compare.py output lacks lookups"; cat "$tmp/cmp.txt"; exit 1; }
/usr/bin/python3 - "$tmp/ua.json" <<'PY'
import json, sys
sys.path.insert(0, "/usr/share/benchmark")
from gbench import util  # compare.py's own loader
d = util.load_benchmark_results(sys.argv[1])
its = {b["name"]: b for b in d["benchmarks"] if b["run_type"] == "iteration"}
assert its["per_item[t=2]"]["items"] == 2.0 and its["total[t=2]"]["total"] == 14.0, its
assert its["lookups[t=2]"]["lookups"] > 0
PY
echo "json_compare_py: compare.py accepted our JSON"
