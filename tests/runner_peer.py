#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A CodSpeed runner double on a private pair of FIFOs (protocol 2, bincode
# frames, docs/protocol.md), for tests and benches that need a runner that
# misbehaves in a controlled way:
#   runner_peer.py CTL ACK BEHAVIOR LIMIT READY [DELAY [COUNT]]
# BEHAVIOR: ok, silent (never answers), slow (every ack DELAY s late),
# slow_start (only StartBenchmark's), err, garbage, refuse (Err to
# SetVersion), stale (acks waiting in the pipe before the first request).
# LIMIT >= 0: the runner dies after that many frames. READY is created once
# the FIFOs are open; COUNT, when given, holds the number of frames received
# so far. It runs until killed (by PID) or its LIMIT.
import os, struct, sys, time

ctl, ack, behavior, limit, ready = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
delay = float(sys.argv[6]) if len(sys.argv) > 6 else 0.0
count = sys.argv[7] if len(sys.argv) > 7 else None
c, a = os.open(ctl, os.O_RDWR), os.open(ack, os.O_RDWR)


def frame(tag, extra=b""):
    payload = struct.pack("<I", tag) + extra
    return struct.pack("<I", len(payload)) + payload


if behavior == "stale":
    os.write(a, frame(6) + frame(10, struct.pack("<I", 2)) + b"\x07\x00")
open(ready, "w").close()
buf, n = b"", 0
while True:
    buf += os.read(c, 65536)
    while len(buf) >= 4 and len(buf) >= 4 + struct.unpack("<I", buf[:4])[0]:
        size = struct.unpack("<I", buf[:4])[0]
        tag = struct.unpack("<I", buf[4:8])[0]
        buf, n = buf[4 + size:], n + 1
        if count:
            with open(count, "w") as f:
                f.write("%d\n" % n)
        if 0 <= limit < n:
            os._exit(0)                      # the runner dies
        if behavior == "silent":
            continue
        if behavior == "slow" or (behavior == "slow_start" and tag == 1):
            time.sleep(delay)
        if behavior == "err":
            os.write(a, frame(6))
        elif behavior == "garbage":
            os.write(a, b"\xff\xff\xff\x7f\xde\xad\xbe\xef")
        elif tag == 9:
            os.write(a, frame(10, struct.pack("<I", 0)))
        elif tag == 8 and behavior == "refuse":
            os.write(a, frame(6))
        else:
            os.write(a, frame(3))
