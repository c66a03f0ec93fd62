#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The models of `ompbench scaling` against SciPy's curve_fit, on synthetic
sweeps of known law with deterministic noise (helper of scaling_models.sh).

  scaling_models.py write DIR    writes DIR/sweep.json (one run per point)
                                 and DIR/reps.json (three repetitions per point)
  scaling_models.py check DIR    reads DIR/sweep.out.json and DIR/reps.out.json
                                 (`ompbench scaling --format json`), fits the same
                                 throughputs with curve_fit and compares.
Exit status 0 when all agree; one line per disagreement otherwise."""
import json
import os
import random
import sys
import warnings

# Two points, two parameters: curve_fit cannot estimate a covariance, and
# says so; only the estimate is compared.
warnings.filterwarnings("ignore", message="Covariance of the parameters")

SAMPLE_SIZE = 1000
WIDTHS = [1, 2, 3, 4, 6, 8, 12, 16]
LAW = {"usl": (0.04, 0.0015), "amdahl": (0.12, 0.0)}


def usl(n, gamma, sigma, kappa):
    return gamma * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


def entry(name, threads, value_ns, rep=0, reps=1, marks=()):
    rounds = [value_ns] * 5  # the median of the rounds is the value
    mk = [int(round(v * SAMPLE_SIZE)) for v in rounds]
    return {"name": name, "run_name": name, "run_type": "iteration", "repetitions": reps,
            "repetition_index": rep, "threads": threads, "time_unit": "ns",
            "iterations": len(mk) * SAMPLE_SIZE, "real_time": value_ns,
            "cpu_time": value_ns * threads,
            "ompbench": {"threads": threads, "sample_size": SAMPLE_SIZE, "rounds": len(mk),
                         "marks": list(marks),
                         "samples": {"makespan_ns": mk, "busy_ns": [[m] * threads for m in mk]}}}


def context():
    return {"json_schema_version": 1, "num_cpus": 64,
            "ompbench": {"topology": {"usable_pus": 64}}}


def sweep(rng, reps):
    out = []
    for fam, (sigma, kappa) in LAW.items():
        widths = WIDTHS if fam == "usl" else [1, 2]
        for n in widths:
            t = 1e6 / usl(n, 1.0, sigma, kappa)
            for r in range(reps):
                # Times to 1 ns: the value written is the value read back.
                v = round(t * (1 + rng.uniform(-0.03, 0.03)), 3)
                out.append(entry("%s[t=%d]" % (fam, n), n, v, r, reps))
    # An oversubscribed point far off the law: it must be left out.
    out.append(entry("usl[t=64]", 64, 5e6, 0, 1, ["oversubscribed"]))
    return {"context": context(), "benchmarks": out}


def write(d):
    rng = random.Random(20261203)
    for name, reps in (("sweep.json", 1), ("reps.json", 3)):
        with open(os.path.join(d, name), "w") as f:
            json.dump(sweep(rng, reps), f)


def curve_fit_family(fam):
    from scipy.optimize import curve_fit
    pts = [(p["threads"], p["median_ns"]) for p in fam["points"]
           if "oversubscribed" not in p["marks"]]
    n = [p[0] for p in pts]
    # Throughput as ompbench defines it: N x ideal / (N0 x time) = base time / time.
    x = [pts[0][1] / p[1] for p in pts]
    out = {}
    a, _ = curve_fit(lambda n, g, s: [usl(k, g, s, 0.0) for k in n], n, x, p0=[1.0, 0.05],
                     bounds=([0, 0], [float("inf")] * 2), xtol=1e-15, ftol=1e-15, gtol=1e-15,
                     max_nfev=100000)
    out["amdahl_serial_fraction"] = a[1]
    if len(pts) >= 3:
        u, _ = curve_fit(lambda n, g, s, k: [usl(j, g, s, k) for j in n], n, x,
                         p0=[1.0, 0.05, 0.001], bounds=([0, 0, 0], [float("inf")] * 3),
                         xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=100000)
        out["usl_sigma"], out["usl_kappa"] = u[1], u[2]
        out["usl_peak_threads"] = ((1 - u[1]) / u[2]) ** 0.5
    return out


def check(d):
    bad = 0
    for name in ("sweep.out.json", "reps.out.json"):
        with open(os.path.join(d, name)) as f:
            doc = json.load(f)
        for fam in doc["families"]:
            model = fam["model"]
            want = curve_fit_family(fam)
            for key, v in want.items():
                got = model[key]["value"]
                print("%s %s %s: ompbench %.9g, curve_fit %.9g" % (name, fam["name"], key, got, v))
                if abs(got - v) > 1e-5 * abs(v) + 1e-9:
                    print("  FAIL: they differ by more than 1e-5 relative")
                    bad += 1
                lo, hi = model[key]["low"], model[key]["high"]
                if name.startswith("reps") and not (lo is not None and lo <= got <= hi):
                    print("%s %s %s: %r not in its interval [%r, %r]" % (name, fam["name"], key,
                                                                        got, lo, hi))
                    bad += 1
            if fam["name"] == "usl" and model["left_out_threads"] != [64]:
                print("%s: left out %r, expected [64]" % (name, model["left_out_threads"]))
                bad += 1
            want_interval = "bootstrap" if name.startswith("reps") else "fit"
            if fam["name"] == "usl" and model["interval"] != want_interval:
                print("%s: interval %r, expected %r" % (name, model["interval"], want_interval))
                bad += 1
    return bad


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2])
        sys.exit(0)
    sys.exit(1 if check(sys.argv[2]) else 0)
