#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a large ompbench result file (docs/json.md) from a small real one:
the input of tests/integration/result_file_scale.sh.

usage: results_file.py TEMPLATE.json N OUT.json [--threads T,...] [--seed S]

TEMPLATE is a result file a benchmark binary wrote; its first "iteration"
entry and the aggregates that follow it are copied N times (per thread
count of --threads, default the template's own), named "big_<i>[<i>]" (with
", t=T" for several thread counts), their times scaled by a factor drawn
from --seed, so that two files of different seeds compare as noisy and
changed instances. The context is the template's. Linear in N; the output
is written to OUT.tmp and renamed.
"""
import copy
import json
import os
import random
import sys


def entries_of(template):
    bench = template["benchmarks"]
    first = next(i for i, b in enumerate(bench) if b.get("run_type") == "iteration")
    run = bench[first]["run_name"]
    return [b for b in bench if b.get("run_name") == run]


def scaled(value, f):
    return value * f if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def scale_times(b, f):
    for k in ("real_time", "cpu_time"):
        if k in b:
            b[k] = scaled(b[k], f)
    st = b.get("ompbench", {}).get("stats")
    if st:
        for k, v in st.items():
            if k.endswith("_ns"):
                st[k] = scaled(v, f)
    sm = b.get("ompbench", {}).get("samples")
    if sm and "makespan_ns" in sm:
        sm["makespan_ns"] = [int(v * f) for v in sm["makespan_ns"]]


def main(argv):
    args = argv[1:]
    threads, seed = None, 1
    if "--threads" in args:
        i = args.index("--threads")
        threads = [int(t) for t in args[i + 1].split(",")]
        del args[i:i + 2]
    if "--seed" in args:
        i = args.index("--seed")
        seed = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 3:
        sys.exit(__doc__)
    template, n, out = json.load(open(args[0])), int(args[1]), args[2]
    rng = random.Random(seed)
    group = entries_of(template)
    base_name = group[0]["run_name"]
    widths = threads or [group[0].get("threads", 1)]
    text = json.dumps(template["context"])
    with open(out + ".tmp", "w") as f:
        f.write('{"context": ' + text + ', "benchmarks": [\n')
        sep = ""
        for i in range(n):
            for t in widths:
                name = f"big_{i}[{i}" + (f", t={t}]" if len(widths) > 1 else "]")
                factor = (1.0 + 0.05 * rng.random()) * (1 + i % 7) / t
                for b in group:
                    e = copy.deepcopy(b)
                    e["name"] = e["name"].replace(base_name, name, 1)
                    e["run_name"] = name
                    e["family_index"] = i
                    e["per_family_instance_index"] = widths.index(t)
                    e["threads"] = t
                    if "ompbench" in e:
                        if "uri" in e["ompbench"]:
                            e["ompbench"]["uri"] = "gen.c::" + name
                        if "threads" in e["ompbench"]:
                            e["ompbench"]["threads"] = t
                        if "pu_map" in e["ompbench"]:
                            e["ompbench"]["pu_map"] = list(range(t))
                        # Per-thread samples as wide as the team, as a run
                        # writes them (readers refuse rows of another width).
                        samples = e["ompbench"].get("samples", {})
                        for key in ("busy_ns", "start_offset_ns"):
                            if key in samples:
                                samples[key] = [[row[k % len(row)] for k in range(t)]
                                                for row in samples[key]]
                    scale_times(e, factor)
                    f.write(sep + json.dumps(e))
                    sep = ",\n"
        f.write("\n]}\n")
    os.rename(out + ".tmp", out)


if __name__ == "__main__":
    main(sys.argv)
