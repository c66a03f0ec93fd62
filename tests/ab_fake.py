#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A stand-in benchmark binary for tests/integration/ab_cli.sh and
ab_inputs.sh: run values chosen, not measured, so that `ompbench ab`'s
decisions are deterministic. Speaks the part of a benchmark binary's
command line that ab uses (--list, --exact, --exact-file, --filter,
--format json, --output; the rest is ignored) and writes Google Benchmark
JSON, one entry per instance. Instances:
  steady  100 ns per iteration +-0.1% (both sides): untouched at the first look
  wild    run k of a side: 100 ns times WILD[(k + o) % len(WILD)], o = 0 for
          BASE and 3 for HEAD, so that the pairs differ too (spread ~60%):
          noisy, and too noisy for any look at a 5% threshold
The run count of each side is kept in $AB_FAKE_DIR/<side>.n, the side
(base or head) is $AB_FAKE_SIDE. Optional environment:
  AB_FAKE_MANY=N   N more instances with long names (steady, as `steady`)
  AB_FAKE_ZERO=1   every time is 0
  AB_FAKE_SLOW=F   HEAD's `steady` takes F times as long (F=10: regressed at
                   the first look, whatever the machine's load)
  AB_FAKE_CRASH=1  every run (not --list) ends by SIGSEGV
  AB_FAKE_ARGS=F   append each run's arguments (one line) to F
  AB_FAKE_START=S  every run (not --list) sleeps S seconds before its first
                   instance, as a process's start-up would take
  AB_FAKE_EACH=S   every instance a run selects sleeps S seconds
  AB_FAKE_OLD=1    refuses --exact-file (exit status 2), as a binary built
                   before it existed does
  AB_FAKE_HOLD=K   the side's run K (0, 1, ...) creates $AB_FAKE_DIR/held and
                   waits (60 s at most) for SIGINT; then, as the harness
                   does, it writes the instances it completed (`steady`
                   only), marked partial, and dies of the signal"""
import json
import os
import re
import signal
import sys
import time

WILD = [1.0, 2.6, 0.55, 1.9, 0.7, 3.1, 1.4, 0.45, 2.2, 0.9]


def names():
    many = int(os.environ.get("AB_FAKE_MANY", "0"))
    return ["steady", "wild"] + ["many/%s/%06d" % ("x" * 120, i) for i in range(many)]


def option(args, name):
    return args[args.index(name) + 1] if name in args else None


def selected(args):
    exact, pattern = option(args, "--exact"), option(args, "--filter")
    listed = option(args, "--exact-file")
    wanted = set(open(listed).read().split("\n")) if listed else None
    return [n for n in names()
            if (exact is None or n == exact) and (pattern is None or re.search(pattern, n))
            and (wanted is None or n in wanted)]


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
    if os.environ.get("AB_FAKE_OLD") and "--exact-file" in args:
        print("ab_fake.py: unknown option '--exact-file' (see --help)", file=sys.stderr)
        return 2
    if os.environ.get("AB_FAKE_ARGS"):
        with open(os.environ["AB_FAKE_ARGS"], "a") as f:
            f.write(" ".join(args) + "\n")
    if os.environ.get("AB_FAKE_CRASH"):
        os.kill(os.getpid(), signal.SIGSEGV)
    side = os.environ["AB_FAKE_SIDE"]
    k = run_index(side)
    time.sleep(float(os.environ.get("AB_FAKE_START", "0")) +
               float(os.environ.get("AB_FAKE_EACH", "0")) * len(selected(args)))
    jitter = 1.0 + 0.001 * ((k * 7 + (side == "head")) % 3 - 1)
    wild = WILD[(k + (3 if side == "head" else 0)) % len(WILD)]
    zero = 0.0 if os.environ.get("AB_FAKE_ZERO") else 1.0
    values = {"wild": 100.0 * wild * zero}
    if side == "head" and os.environ.get("AB_FAKE_SLOW"):
        values["steady"] = 100.0 * jitter * zero * float(os.environ["AB_FAKE_SLOW"])
    entries = [{"name": n, "run_name": n, "run_type": "iteration", "repetitions": 1,
                "repetition_index": 0, "threads": 1, "iterations": 1000,
                "real_time": values.get(n, 100.0 * jitter * zero),
                "cpu_time": values.get(n, 100.0 * jitter * zero), "time_unit": "ns"}
               for n in selected(args)]
    context = {"executable": "ab_fake.py", "num_cpus": 2}
    if os.environ.get("AB_FAKE_HOLD") == str(k):
        hold()
        entries = [e for e in entries if e["name"] == "steady"]
        context.update(partial=True, interrupted_by="SIGINT")
    doc = {"context": context, "benchmarks": entries}
    with open(option(args, "--output"), "w") as f:
        json.dump(doc, f)
    if os.environ.get("AB_FAKE_HOLD") == str(k):
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return 0


def hold():
    got = []
    signal.signal(signal.SIGINT, lambda *_: got.append(1))
    open(os.path.join(os.environ["AB_FAKE_DIR"], "held"), "w").close()
    for _ in range(600):
        if got:
            return
        time.sleep(0.1)
    sys.exit(3)


sys.exit(main(sys.argv[1:]))
