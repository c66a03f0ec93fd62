#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `ompbench collect` stopped while its command runs: Ctrl-C (SIGINT to the
# whole process group, as a terminal sends it) and SIGTERM to the collector
# alone. Either way the command stops, the collector waits for it, removes
# its temporary directory and exits with the command's status (128 + the
# signal). Waits are generous and scaled by OMPB_TEST_TIMEOUT_MULTIPLIER.
set -uo pipefail
build=$1
tool="$build/tools/ompbench"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tool" "$tmp" <<'PY'
import os, signal, subprocess, sys, time
tool, tmp = sys.argv[1], sys.argv[2]
wait = 30 * max(1, int(os.environ.get("OMPB_TEST_TIMEOUT_MULTIPLIER", "1") or 1))
fail = 0

def run_case(name, send, want):
    global fail
    scratch = os.path.join(tmp, name)
    os.mkdir(scratch)
    started = os.path.join(scratch, "started")
    cmd = [tool, "collect", "--", "sh", "-c", 'touch "$0"; exec sleep 300', started]
    env = dict(os.environ, TMPDIR=scratch)
    p = subprocess.Popen(cmd, env=env, start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + wait
    while not os.path.exists(started) and time.monotonic() < deadline:
        time.sleep(0.02)
    send(p)
    try:
        rc = p.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        print("FAIL: %s: the collector did not exit" % name)
        fail = 1
        return
    left = [f for f in os.listdir(scratch) if f.startswith("ompbench-collect.")]
    if rc != want or left:
        print("FAIL: %s: exit %d (want %d), left behind: %r" % (name, rc, want, left))
        print(p.stderr.read().decode(errors="replace"))
        fail = 1

run_case("ctrl_c", lambda p: os.killpg(p.pid, signal.SIGINT), 128 + signal.SIGINT)
run_case("sigterm", lambda p: os.kill(p.pid, signal.SIGTERM), 128 + signal.SIGTERM)
sys.exit(fail)
PY
