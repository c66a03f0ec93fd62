#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a Google Benchmark JSON file of N names (N/2 benchmarks at two
# thread counts), times scaled by SCALE: the input of benches/names.sh and
# tests/integration/name_matching_scale.sh. With "aggregates", each is
# reported as --benchmark_report_aggregates_only writes it (its _mean,
# _median and _stddev over 3 repetitions, no iteration entry), for
# tests/integration/result_file_scale.sh.
# Usage: names_file.py N SCALE PATH [aggregates]
import json
import sys

n, scale, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
aggregates = sys.argv[4:] == ["aggregates"]
bench = []
for i in range(n // 2):
    for t in (1, 2):
        name = "bench_%d[%d, t=%d]" % (i, i % 97, t)
        time = scale * (100.0 + i % 13) / t
        if not aggregates:
            bench.append({"name": name, "run_type": "iteration", "threads": t,
                          "iterations": 1000, "time_unit": "ns", "real_time": time,
                          "cpu_time": 1.0})
            continue
        for kind, value in (("mean", time), ("median", time), ("stddev", time / 50)):
            bench.append({"name": name + "_" + kind, "run_name": name, "run_type": "aggregate",
                          "aggregate_name": kind, "repetitions": 3, "threads": t,
                          "iterations": 1000, "time_unit": "ns", "real_time": value,
                          "cpu_time": value})
with open(path, "w") as f:
    json.dump({"context": {"json_schema_version": 1}, "benchmarks": bench}, f)
