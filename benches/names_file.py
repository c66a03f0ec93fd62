#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Writes a Google Benchmark JSON file of N names (N/2 benchmarks at two
# thread counts), times scaled by SCALE: the input of benches/names.sh and
# tests/integration/name_matching_scale.sh.
# Usage: names_file.py N SCALE PATH
import json
import sys

n, scale, path = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
bench = []
for i in range(n // 2):
    for t in (1, 2):
        bench.append({"name": "bench_%d[%d, t=%d]" % (i, i % 97, t), "run_type": "iteration",
                      "threads": t, "iterations": 1000, "time_unit": "ns",
                      "real_time": scale * (100.0 + i % 13) / t, "cpu_time": 1.0})
with open(path, "w") as f:
    json.dump({"context": {"json_schema_version": 1}, "benchmarks": bench}, f)
