#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A stand-in benchmark binary for tests/integration/ab_cli.sh: run values
chosen, not measured, so that `ompbench ab`'s decisions are deterministic.
Speaks the part of a benchmark binary's command line that ab uses (--list,
--exact, --filter, --format json, --output; the rest is ignored) and writes
Google Benchmark JSON, one entry per instance. Instances:
  steady  100 ns per iteration +-0.1% (both sides): untouched at the first look
  wild    run k of a side: 100 ns times WILD[(k + o) % len(WILD)], o = 0 for
          BASE and 3 for HEAD, so that the pairs differ too (spread ~60%):
          noisy, and too noisy for any look at a 5% threshold
The run count of each side is kept in $AB_FAKE_DIR/<side>.n, the side
(base or head) is $AB_FAKE_SIDE."""
import json
import os
import re
import sys

NAMES = ["steady", "wild"]
WILD = [1.0, 2.6, 0.55, 1.9, 0.7, 3.1, 1.4, 0.45, 2.2, 0.9]


def option(args, name):
    return args[args.index(name) + 1] if name in args else None


def selected(args):
    exact, pattern = option(args, "--exact"), option(args, "--filter")
    return [n for n in NAMES
            if (exact is None or n == exact) and (pattern is None or re.search(pattern, n))]


def run_index(side):
    path = os.path.join(os.environ["AB_FAKE_DIR"], side + ".n")
    k = int(open(path).read()) if os.path.exists(path) else 0
    with open(path, "w") as f:
        f.write(str(k + 1))
    return k


def main(args):
    if "--list" in args:
        print("\n".join(selected(args)))
        return 0
    side = os.environ["AB_FAKE_SIDE"]
    k = run_index(side)
    jitter = 1.0 + 0.001 * ((k * 7 + (side == "head")) % 3 - 1)
    wild = WILD[(k + (3 if side == "head" else 0)) % len(WILD)]
    values = {"steady": 100.0 * jitter, "wild": 100.0 * wild}
    entries = [{"name": n, "run_name": n, "run_type": "iteration", "repetitions": 1,
                "repetition_index": 0, "threads": 1, "iterations": 1000,
                "real_time": values[n], "cpu_time": values[n], "time_unit": "ns"}
               for n in selected(args)]
    doc = {"context": {"executable": "ab_fake.py", "num_cpus": 2}, "benchmarks": entries}
    with open(option(args, "--output"), "w") as f:
        json.dump(doc, f)
    return 0


sys.exit(main(sys.argv[1:]))
