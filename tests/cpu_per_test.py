#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""CPU time per test of a ctest build tree, to see where `make test` spends it.

Run in a build directory, with the environment of the stage to measure:
  cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \\
    OMPB_TEST_TIMEOUT_MULTIPLIER=4 python3 ../tests/cpu_per_test.py -j 3 -LE no-sanitize
Each test's command, environment and working directory come from
`ctest --show-only=json-v1`; the tests run outside ctest, JOBS at a time,
each bounded by its TIMEOUT (else 1500 s, ctest's default) and killed with
its process group after it. One line per test as it ends: name, exit status,
wall seconds, user + system CPU seconds of the test and its children (wait4),
then the totals. CPU barely depends on the load, wall does. Fixtures are not
run (contributing.*, whose shared tree needs its setup, and foreign_runner.*
are left out), nor are disabled tests.
"""
import argparse, json, os, signal, subprocess, sys, threading, time

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("-j", type=int, default=2, help="tests at a time (default 2)")
ap.add_argument("-LE", dest="exclude_label", help="leave out the tests with this label")
ap.add_argument("-R", dest="regex", help="only the tests whose name matches (ctest -R)")
a = ap.parse_args()
cmd = ["ctest", "--show-only=json-v1"] + (["-R", a.regex] if a.regex else [])
tests = []
for t in json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)["tests"]:
    p = {x["name"]: x["value"] for x in t.get("properties", [])}
    n = t["name"]
    if (p.get("DISABLED") or "command" not in t or n.startswith(("contributing.", "foreign_runner."))
            or (a.exclude_label and a.exclude_label in p.get("LABELS", []))):
        continue
    env = dict(os.environ)
    for kv in p.get("ENVIRONMENT", []):
        k, v = kv.split("=", 1)
        env[k] = v
    for kv in p.get("ENVIRONMENT_MODIFICATION", []):
        k, v = kv.split("=", 1)
        if v.startswith("unset:"):
            env.pop(k, None)
    tests.append((n, t["command"], env, p.get("WORKING_DIRECTORY", os.getcwd()),
                  float(p.get("TIMEOUT", 1500))))

lock = threading.Lock()
queue = list(tests)
total = [0.0, 0.0]

def run(name, command, env, cwd, timeout):
    t0 = time.time()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    timer = threading.Timer(timeout, lambda: os.killpg(proc.pid, signal.SIGKILL))
    timer.start()
    _, status, ru = os.wait4(proc.pid, 0)
    timer.cancel()
    wall, cpu = time.time() - t0, ru.ru_utime + ru.ru_stime
    with lock:
        total[0] += wall
        total[1] += cpu
        print("%s %d %.2f %.2f" % (name, os.waitstatus_to_exitcode(status), wall, cpu), flush=True)

def worker():
    while True:
        with lock:
            if not queue:
                return
            job = queue.pop(0)
        run(*job)

threads = [threading.Thread(target=worker) for _ in range(max(1, a.j))]
for th in threads:
    th.start()
for th in threads:
    th.join()
print("total: %d tests, %.1f s wall, %.1f s CPU" % (len(tests), total[0], total[1]))
