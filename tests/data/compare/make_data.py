#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the crafted result files of tests/data/compare (run it from anywhere;
the output is deterministic and committed). Files follow docs/json.md: one
"iteration" entry per instance with ompbench.samples.makespan_ns, plus the four
aggregates, which readers must skip. gbench_*.json are plain Google Benchmark
JSON as its reporter writes it (no "ompbench" objects)."""
import copy
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE_SIZE = 1000


def context(host="node01", runtime="gnu", cpu="Example CPU 3000"):
    """The context object as lib/context/context.c writes it; runtime "gnu" or "llvm"."""
    gnu = runtime == "gnu"
    return {
        "date": "2026-11-29T17:30:00+00:00", "host_name": host,
        "executable": "build/benches/examples", "num_cpus": 2, "mhz_per_cpu": 2900,
        "cpu_scaling_enabled": False,
        "caches": [{"type": "Data", "level": 1, "size": 49152, "num_sharing": 1}],
        "load_avg": [0.1, 0.2, 0.3], "library_build_type": "release",
        "json_schema_version": 1,
        "ompbench": {
            "version": "0.1.0", "cpu_model": cpu,
            "topology": {"packages": 1, "numa_nodes": 1, "cores": 2, "pus": 2,
                         "usable_cores": 2, "usable_pus": 2, "usable_cpuset": "0-1",
                         "this_system": True},
            "openmp": {"_OPENMP": 201511, "version": "4.5",
                       "vendor": "GNU libgomp" if gnu else "LLVM libomp",
                       "library": "/usr/lib/x86_64-linux-gnu/" +
                                  ("libgomp.so.1.0.0" if gnu else "libomp.so.5"),
                       "max_threads": 2, "proc_bind": "close" if gnu else "spread",
                       "num_places": 2},
            "environment": ({"OMP_PLACES": "cores", "OMP_PROC_BIND": "close"} if gnu else
                            {"OMP_PROC_BIND": "spread", "OMP_WAIT_POLICY": "passive"}),
            "compiler": "GNU 12.2.0", "compiler_flags": "-O3", "optimized": True,
            "build_type": "Release", "load_avg": [0.1, 0.2, 0.3], "default_threads": 2,
            "cpu_governor": "performance",
            "pin": {"policy": "compact", "given": False, "binder": "ompbench",
                    "description": "ompbench binds each team thread", "plans": []},
            "warnings": [],
        },
    }


def jitter(center, n, spread=0.01):
    """n deterministic per-iteration times around center (+-spread), 3 decimals."""
    return [round(center * (1 + spread * (((i * 7) % 5) - 2) / 2), 3) for i in range(n)]


def entry(name, samples, threads=2, busy_ratio=1.0, failed=None):
    e = {"name": name, "family_index": 0, "per_family_instance_index": 0,
         "run_name": name, "run_type": "iteration", "repetitions": 1,
         "repetition_index": 0, "threads": threads, "time_unit": "ns"}
    if failed:
        e.update({"error_occurred": True, "error_message": failed, "iterations": 0,
                  "real_time": 0, "cpu_time": 0})
        e["ompbench"] = {"threads": threads}
        return e
    mk = [int(round(s * SAMPLE_SIZE)) for s in samples]
    rounds = len(mk)
    # Thread 0 is the slowest by busy_ratio: imbalance = max / mean.
    busy = [[max(m - 50, 0)] + [int(max(m - 50, 0) / busy_ratio)] * (threads - 1) for m in mk]
    mean = sum(samples) / rounds
    e.update({"iterations": rounds * SAMPLE_SIZE, "real_time": mean,
              "cpu_time": mean * threads})
    e["ompbench"] = {
        "uri": "benches/examples.c::" + name, "threads": threads,
        "sample_size": SAMPLE_SIZE, "rounds": rounds, "warmup_rounds": 3,
        "warmup_iters": 3000, "calibration_rounds": 4, "migrations": 0,
        "pu_map": list(range(threads)),
        "stats": {"min_ns": min(samples), "max_ns": max(samples), "mean_ns": mean,
                  "median_ns": statistics.median(samples)},
        "samples": {"makespan_ns": mk, "start_skew_ns": [300] * rounds, "busy_ns": busy},
    }
    return e


def aggregates(e):
    out = []
    for agg in ("mean", "median", "stddev", "cv"):
        a = {k: e[k] for k in ("name", "run_name", "threads", "time_unit")}
        a.update({"name": e["name"] + "_" + agg, "run_type": "aggregate",
                  "aggregate_name": agg, "real_time": e.get("real_time", 0),
                  "cpu_time": 0, "iterations": 1})
        out.append(a)
    return out


def result(entries, ctx=None):
    benches = []
    for e in entries:
        benches.append(e)
        if not e.get("error_occurred"):
            benches += aggregates(e)
    return {"context": ctx or context(), "benchmarks": benches}


def write(name, doc):
    with open(os.path.join(HERE, name), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


# Every verdict. 20 rounds give the U test plenty of power; "wide" is beyond the
# threshold in the median but the samples overlap too much to reject equality.
WIDE_BASE = [90, 100, 110, 120, 130, 95, 105, 115, 125, 135]
WIDE_HEAD = [99, 109, 119, 129, 139, 104, 114, 124, 134, 144]
base = [
    entry("improved[t=2]", jitter(1000.0, 20)),
    entry("regressed[t=2]", jitter(1000.0, 20)),
    entry("noise[t=2]", jitter(1000.0, 20)),
    entry("wide[t=2]", WIDE_BASE),
    entry("few[t=2]", [100.0, 101.0, 99.0]),
    entry("edge[t=2]", [100.0] * 10),
    entry("edge_above[t=2]", [100.0] * 10),
    entry("gone[t=2]", jitter(500.0, 20)),
    entry("broken[t=2]", jitter(200.0, 20)),
]
head = [
    entry("improved[t=2]", jitter(800.0, 20)),
    entry("regressed[t=2]", jitter(1200.0, 20)),
    entry("noise[t=2]", jitter(1010.0, 20)),
    entry("wide[t=2]", WIDE_HEAD),
    entry("few[t=2]", [120.0, 121.0, 119.0]),
    entry("edge[t=2]", [105.0] * 10),
    entry("edge_above[t=2]", [105.1] * 10),
    entry("broken[t=2]", None, failed="benchmark left its loop early"),
    entry("fresh[t=2]", jitter(300.0, 20)),
]
write("base.json", result(base))
write("head.json", result(head))

# The same measurements as base.json on a different machine and runtime.
write("base_other_env.json",
      result(base, context(host="node02", runtime="llvm", cpu="Other CPU 2000")))

# Plain Google Benchmark: one run per instance (threshold only), and with
# repetitions (each repetition a sample).
def gbench(name, times, reps=False):
    out = []
    for i, t in enumerate(times):
        out.append({"name": name, "family_index": 0, "per_family_instance_index": 0,
                    "run_name": name, "run_type": "iteration",
                    "repetitions": len(times), "repetition_index": i, "threads": 1,
                    "iterations": 1000, "real_time": t, "cpu_time": t,
                    "time_unit": "us"})
    if reps:
        out.append({"name": name + "_mean", "run_name": name, "run_type": "aggregate",
                    "aggregate_name": "mean", "repetitions": len(times), "threads": 1,
                    "iterations": len(times), "real_time": sum(times) / len(times),
                    "cpu_time": 0, "time_unit": "us"})
    return out


gb_ctx = {"date": "2026-11-29T17:30:00+00:00", "host_name": "node01",
          "executable": "./bm", "num_cpus": 2, "mhz_per_cpu": 2900,
          "cpu_scaling_enabled": False, "caches": [], "load_avg": [0.1, 0.1, 0.1],
          "library_build_type": "release", "json_schema_version": 1}
write("gbench_base.json", {"context": gb_ctx, "benchmarks":
      gbench("BM_sort/1024", [10.0]) + gbench("BM_copy/64", [2.0]) +
      gbench("BM_hash", [5.0])})
write("gbench_head.json", {"context": gb_ctx, "benchmarks":
      gbench("BM_sort/1024", [8.0]) + gbench("BM_copy/64", [2.3]) +
      gbench("BM_hash", [5.1])})
write("gbench_reps_base.json", {"context": gb_ctx, "benchmarks":
      gbench("BM_sort/1024", [10.0, 10.1, 9.9, 10.2, 9.8, 10.05, 9.95, 10.15], True)})
write("gbench_reps_head.json", {"context": gb_ctx, "benchmarks":
      gbench("BM_sort/1024", [8.0, 8.1, 7.9, 8.2, 7.8, 8.05, 7.95, 8.15], True)})

# Malformed inputs for the command line (the unit test covers each check with
# inline JSON): cut in the middle, not JSON, JSON of the wrong shape.
with open(os.path.join(HERE, "base.json")) as f:
    text = f.read()
with open(os.path.join(HERE, "truncated.json"), "w") as f:
    f.write(text[: len(text) // 2])
with open(os.path.join(HERE, "not_json.txt"), "w") as f:
    f.write("name,real_time\ntriad,1.5\n")
write("wrong_schema.json", {"creator": {"name": "codspeed-cpp", "version": "1", "pid": 1},
                            "instrument": {"type": "walltime"},
                            "benchmarks": [{"name": "x", "uri": "x", "stats": {}}]})
write("no_samples.json", result([{
    **entry("triad[t=2]", [1.0]), "ompbench": {"threads": 2, "sample_size": 1000}}]))

# Scaling: triad at 1, 2, 4 threads, stream from 2 threads, a benchmark at a
# single width (skipped) and one without a thread part.
scaling = [
    entry("triad[1048576, t=1]", [1000.0] * 5, threads=1),
    entry("triad[1048576, t=2]", [520.0] * 5, threads=2, busy_ratio=1.04),
    entry("triad[1048576, t=4]", [300.0] * 5, threads=4, busy_ratio=1.25),
    entry("stream[t=2]", [800.0] * 5, threads=2),
    entry("stream[t=4]", [500.0] * 5, threads=4),
    entry("lonely[t=2]", [10.0] * 5, threads=2),
    entry("fib[20]", [40.0] * 5, threads=1),
]
write("scaling.json", result(scaling))

# Google Benchmark with --benchmark_report_aggregates_only: no iteration
# entries, only the aggregates of each run (grouped by run_name). BM_sort has
# a median (which stands for it), BM_copy only a mean (the fallback).
def gbench_aggregates(run, kinds_times, reps=5):
    out = []
    for agg, t in kinds_times:
        out.append({"name": run + "_" + agg, "family_index": 0,
                    "per_family_instance_index": 0, "run_name": run,
                    "run_type": "aggregate", "repetitions": reps, "threads": 1,
                    "aggregate_name": agg, "iterations": reps, "real_time": t,
                    "cpu_time": t, "time_unit": "us"})
    return out


write("gbench_agg_base.json", {"context": gb_ctx, "benchmarks":
      gbench_aggregates("BM_sort/1024", [("mean", 10.2), ("median", 10.0),
                                          ("stddev", 0.3)]) +
      gbench_aggregates("BM_copy/64", [("mean", 2.0), ("stddev", 0.1)])})
write("gbench_agg_head.json", {"context": gb_ctx, "benchmarks":
      gbench_aggregates("BM_sort/1024", [("mean", 10.3), ("median", 10.1),
                                          ("stddev", 0.3)]) +
      gbench_aggregates("BM_copy/64", [("mean", 2.5), ("stddev", 0.1)])})
# Only spread aggregates: nothing stands for the run, so no instance at all.
write("gbench_agg_unusable.json", {"context": gb_ctx, "benchmarks":
      gbench_aggregates("BM_sort/1024", [("stddev", 0.3), ("cv", 0.03)])})


# Scaling on hostile input: names with markup, control characters (XML 1.0
# forbids them even as references), a backtick and U+FFFE; times 1e300 ns
# against 1 ns (efficiency 5e299), 1 ms against 1 ns, and a time of 0.
def plain(name, ns, threads):
    return {"name": name, "run_name": name, "run_type": "iteration",
            "repetitions": 1, "repetition_index": 0, "threads": threads,
            "iterations": 1, "real_time": ns, "cpu_time": ns, "time_unit": "ns"}


HOSTILE = "ctl<&\"]]>\u0001\u001b[31m\u007f`\ufffe\ttab"
write("scaling_hostile.json", {"benchmarks": [
    plain(HOSTILE + "[t=1]", 1000.0, 1), plain(HOSTILE + "[t=2]", 600.0, 2),
    plain("huge[t=1]", 1e300, 1), plain("huge[t=2]", 1.0, 2),
    plain("ms_vs_ns[t=1]", 1e6, 1), plain("ms_vs_ns[t=2]", 1.0, 2),
    plain("ms_vs_ns[t=64]", 2.0, 64),
    plain("zero[t=1]", 100.0, 1), plain("zero[t=2]", 0.0, 2)]})


# ---- Runs: repetitions in processes (docs/json.md), for run-level verdicts ----
# runs_base.json / runs_head.json: every instance measured in 4 processes x 2
# repetitions (ompbench.process 0-3, repetition_index 0-7, 5 rounds each
# centred on the repetition's median). runs_expected.json holds what compare
# must find, computed here with NumPy/SciPy from the same medians: per
# process the mean log median is one run; Welch's t on the runs; the 95%
# interval; the p-value of the interval null [log 0.95, log 1.05];
# Benjamini-Hochberg over the judged instances; the verdict.
import math  # noqa: E402

import numpy as np  # noqa: E402
from scipy import stats  # noqa: E402

PROCS, PER_PROC = 4, 2
REP_FACTORS = [0.998, 1.002]


def run_entries(name, center, proc_factors, failed_rep=None, zero=False):
    out = []
    reps = PROCS * PER_PROC
    for k in range(reps):
        proc, within = k % PROCS, k // PROCS
        med = 0.0 if zero else center * proc_factors[proc] * REP_FACTORS[within]
        if failed_rep == k:
            e = entry(name, None, failed="benchmark left its loop early")
        else:
            e = entry(name, jitter(med, 5) if not zero else [0.0] * 5)
        e["repetitions"], e["repetition_index"] = reps, k
        e["ompbench"]["process"] = proc
        out.append(e)
    return out


def write_compact(name, doc):
    """One benchmark entry per line: these files hold hundreds of entries."""
    with open(os.path.join(HERE, name), "w") as f:
        f.write('{"context": %s,\n "benchmarks": [\n' % json.dumps(doc["context"]))
        f.write(",\n".join("  " + json.dumps(e) for e in doc["benchmarks"]))
        f.write("\n]}\n")


def runs_result(groups, build_id="0f1e2d3c4b5a69788796a5b4c3d2e1f001234567"):
    ctx = context()
    ctx["ompbench"]["build_id"] = build_id
    ctx["ompbench"]["run"] = {"repetitions": PROCS * PER_PROC, "processes": PROCS,
                              "interleaved": True, "seed": "42"}
    return {"context": ctx, "benchmarks": [e for g in groups for e in g]}


FLAT = [1.0] * PROCS
RUNS = {  # name: (base centre, base process factors, head centre, head factors)
    "regressed[t=2]": (1000.0, [1.00, 1.02, 0.99, 1.01], 1200.0, [1.01, 0.99, 1.00, 1.02]),
    "improved[t=2]": (1000.0, [1.00, 1.02, 0.99, 1.01], 800.0, [1.00, 0.99, 1.01, 1.02]),
    "untouched[t=2]": (1000.0, [1.00, 1.02, 0.99, 1.01], 1000.0, [1.005, 1.0, 0.995, 1.01]),
    "noisy[t=2]": (1000.0, [0.85, 1.10, 0.95, 1.15], 1030.0, [1.10, 0.90, 1.05, 0.95]),
    "exact5[t=2]": (100.0, FLAT, 105.0, FLAT),
    "above5[t=2]": (100.0, FLAT, 105.1, FLAT),
}
base_groups = [run_entries(n, b, bf) for n, (b, bf, h, hf) in RUNS.items()]
head_groups = [run_entries(n, h, hf) for n, (b, bf, h, hf) in RUNS.items()]
base_groups += [run_entries("broken[t=2]", 200.0, FLAT), run_entries("gone[t=2]", 500.0, FLAT),
                run_entries("zero[t=2]", 0.0, FLAT, zero=True)]
head_groups += [run_entries("broken[t=2]", 200.0, FLAT, failed_rep=5),
                run_entries("fresh[t=2]", 300.0, FLAT), run_entries("zero[t=2]", 50.0, FLAT)]
write_compact("runs_base.json", runs_result(base_groups))
write_compact("runs_head.json", runs_result(head_groups))
# The same BASE runs split in two files (processes 0-1, 2-3): pooled, they
# must give exactly what runs_base.json gives.
for part, procs in (("a", (0, 1)), ("b", (2, 3))):
    doc = runs_result([[copy.deepcopy(e) for e in g if e["ompbench"].get("process") in procs]
                       for g in base_groups])
    for e in doc["benchmarks"]:
        e["repetitions"] = len(procs) * PER_PROC
        e["repetition_index"] = (e["repetition_index"] // PROCS) * len(procs) + \
            procs.index(e["ompbench"]["process"])
    doc["context"]["date"] = "2026-11-29T17:4%d:00+00:00" % procs[0]
    write_compact("runs_base_%s.json" % part, doc)
# Another binary (another build ID) cannot be pooled with runs_base.json.
write_compact("runs_other_binary.json", runs_result(base_groups, build_id="ffff" * 10))


def unit_logs(entries):
    """Per process, the mean log of its repetitions' medians, from the very
    entries written (makespans are whole nanoseconds)."""
    by_proc = {}
    for e in entries:
        med = float(np.median(e["ompbench"]["samples"]["makespan_ns"])) / SAMPLE_SIZE
        by_proc.setdefault(e["ompbench"]["process"], []).append(math.log(med))
    return [float(np.mean(v)) for _, v in sorted(by_proc.items())]


def expected_rows():
    # The bounds as compare sets them: the threshold with a 1e-9 relative slack.
    lo, hi = math.log1p(-0.05 * (1 + 1e-9)), math.log1p(0.05 * (1 + 1e-9))
    rows = {}
    groups = {g[0]["name"]: (g, h) for g, h in zip(base_groups, head_groups)}
    for name in RUNS:
        x, y = (np.array(unit_logs(side)) for side in groups[name])
        vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
        d = y.mean() - x.mean()
        se = math.sqrt(vx + vy)
        if se > 0:
            df = (vx + vy) ** 2 / (vx ** 2 / (len(x) - 1) + vy ** 2 / (len(y) - 1))
            half = stats.t.ppf(0.975, df) * se
            p = min(1.0, 2 * min(stats.t.sf((d - hi) / se, df), stats.t.cdf((d - lo) / se, df)))
        else:
            half, p = 0.0, (0.0 if (d > hi or d < lo) else 1.0)
        rows[name] = {"base_ns": math.exp(x.mean()), "head_ns": math.exp(y.mean()),
                      "change": math.expm1(d), "ci_low": math.expm1(d - half),
                      "ci_high": math.expm1(d + half), "p": float(p),
                      "base_spread": float(x.std(ddof=1)), "head_spread": float(y.std(ddof=1)),
                      "inside": bool(d - half >= lo and d + half <= hi)}
    names = list(rows)
    ps = np.array([rows[n]["p"] for n in names])
    order = np.argsort(ps, kind="stable")
    q = ps[order] * len(ps) / np.arange(1, len(ps) + 1)
    q = np.minimum.accumulate(q[::-1])[::-1]
    qs = np.empty(len(ps))
    qs[order] = np.minimum(q, 1.0)
    for n, qv in zip(names, qs):
        r = rows[n]
        r["q"] = float(qv)
        r["verdict"] = (("regressed" if r["change"] > 0 else "improved") if qv <= 0.05 else
                        "untouched" if r["inside"] else "noisy")
        del r["inside"]
    return rows


write("runs_expected.json", {"generator": "tests/data/compare/make_data.py",
                             "threshold": 0.05, "alpha": 0.05, "rows": expected_rows()})


# gbench_agg_*.json: one process a side, so noise unknown; the value of a run
# is its median aggregate (else its mean), and the note shows the in-process
# spread of its repetitions as a log-normal with the aggregates' mean and
# standard deviation would have it: sqrt(log(1 + cv^2)).
def agg_expected(value_b, mb, sb, value_h, mh, sh):
    return {"base_ns": value_b * 1000, "head_ns": value_h * 1000,
            "change": value_h / value_b - 1,
            "base_spread": math.sqrt(math.log1p((sb / mb) ** 2)),
            "head_spread": math.sqrt(math.log1p((sh / mh) ** 2)), "verdict": "noise_unknown"}


write("gbench_agg_expected.json", {"generator": "tests/data/compare/make_data.py", "rows": {
    "BM_sort/1024": agg_expected(10.0, 10.2, 0.3, 10.1, 10.3, 0.3),
    "BM_copy/64": agg_expected(2.0, 2.0, 0.1, 2.5, 2.5, 0.1)}})
