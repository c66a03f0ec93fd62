#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A tiny Chrome DevTools Protocol client over --remote-debugging-pipe (file
# descriptors 3 and 4, NUL-terminated JSON), for report_browser.sh: one
# headless Chromium for every page of the test (a browser start is about
# 2 s of CPU on the CI machine), each page in a tab of its own, opened and
# closed, so that what one page does is never counted for another. For
# each page it writes, as JSON, every network request that is not the file
# itself, every console error and uncaught exception, the answers of the
# JavaScript expressions given (counts of marks, ...), and a PNG
# screenshot of each "#view=" fragment given. Stops the browser it
# started, by its PID, and bounds every wait.
#   report_cdp.py CHROMIUM JOBS.json
# JOBS.json: {"exprs": {NAME: EXPR}, "pages": [{"page": HTML, "out": JSON,
#   "shot_prefix": PREFIX, "views": [VIEW...], "exprs": true|false}]}
import base64, json, os, select, signal, subprocess, sys, tempfile, time

chromium, jobs_path = sys.argv[1:3]
jobs = json.load(open(jobs_path))
# The bound of the whole session: 60 s for the browser and 30 s a page.
limit = (60 + 30 * len(jobs["pages"])) * int(os.environ.get("OMPB_TEST_TIMEOUT_MULTIPLIER", "1"))
deadline = time.monotonic() + limit

to_chrome_r, to_chrome_w = os.pipe()
from_chrome_r, from_chrome_w = os.pipe()
profile = tempfile.mkdtemp(prefix="ompb-chromium-")
args = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--user-data-dir=" + profile, "--remote-debugging-pipe",
        # Any request would go to a closed port: none may be made at all.
        "--proxy-server=http://127.0.0.1:9", "--window-size=1100,900", "about:blank"]
def child_fds():
    # Through fresh descriptors: a pipe end already at 3 or 4 would keep
    # its close-on-exec flag after a dup2 onto itself.
    a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
    os.dup2(a, 3)
    os.dup2(b, 4)
proc = subprocess.Popen(args, preexec_fn=child_fds, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, close_fds=False)
os.close(to_chrome_r)
os.close(from_chrome_w)
buf = b""
next_id = [0]
events = []

def fail(msg):
    print("report_cdp: " + msg, file=sys.stderr)
    stop()
    sys.exit(1)

def stop():
    if proc.poll() is None:
        os.kill(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
    subprocess.run(["rm", "-rf", profile])

def read_message():
    global buf
    while b"\0" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            fail("timed out after %d s" % limit)
        r, _, _ = select.select([from_chrome_r], [], [], left)
        if r:
            chunk = os.read(from_chrome_r, 1 << 20)
            if not chunk:
                fail("the browser closed the pipe")
            buf += chunk
    msg, buf = buf.split(b"\0", 1)
    return json.loads(msg)

def call(method, params=None, session=None):
    next_id[0] += 1
    m = {"id": next_id[0], "method": method, "params": params or {}}
    if session:
        m["sessionId"] = session
    os.write(to_chrome_w, json.dumps(m).encode() + b"\0")
    while True:
        msg = read_message()
        if msg.get("id") == next_id[0]:
            if "error" in msg:
                fail("%s: %s" % (method, msg["error"]))
            return msg.get("result", {})
        events.append(msg)

def wait_event(name, session):
    while True:
        for i, e in enumerate(events):
            if e.get("method") == name and e.get("sessionId") == session:
                return events.pop(i)
        events.append(read_message())

def drain():
    """Events that arrived meanwhile: requests, console errors, exceptions."""
    while True:
        r, _, _ = select.select([from_chrome_r], [], [], 0.3)
        if not r:
            return
        events.append(read_message())

def check(job):
    target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
    sess = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    for domain in ("Page", "Network", "Runtime", "Log"):
        call(domain + ".enable", session=sess)
    url = "file://" + os.path.abspath(job["page"])
    result = {"requests": [], "errors": [], "values": {}, "shots": []}

    def load(target_url):
        """A fresh document (about:blank between), its load event awaited."""
        for u in ("about:blank", target_url):
            events[:] = [e for e in events if not (e.get("method") == "Page.loadEventFired"
                                                   and e.get("sessionId") == sess)]
            call("Page.navigate", {"url": u}, session=sess)
            wait_event("Page.loadEventFired", sess)

    for view in [""] + job.get("views", []):
        load(url + ("#view=" + view if view else ""))
        if view:
            # Three quarters of the window: small enough for docs/img.
            shot = call("Page.captureScreenshot", {"format": "png", "clip": {
                "x": 0, "y": 0, "width": 1100, "height": 900, "scale": 0.75}}, session=sess)
            name = "%s%s.png" % (job["shot_prefix"], view)
            with open(name, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            result["shots"].append(name)
        elif job.get("exprs", True):
            for key, expr in jobs["exprs"].items():
                r = call("Runtime.evaluate", {"expression": expr, "returnByValue": True},
                         session=sess)
                if "exceptionDetails" in r:
                    result["errors"].append("evaluating %s: %s" % (key, r["exceptionDetails"]))
                result["values"][key] = r.get("result", {}).get("value")
            # A narrow window (a phone): the page must fit its width.
            call("Emulation.setDeviceMetricsOverride", {"width": 420, "height": 800,
                 "deviceScaleFactor": 1, "mobile": False}, session=sess)
            r = call("Runtime.evaluate", {"expression": "[getComputedStyle(document.querySelector("
                     "'main') || document.body).display, document.documentElement.scrollWidth]",
                     "returnByValue": True}, session=sess)
            result["values"]["narrow"] = r.get("result", {}).get("value")
            call("Emulation.clearDeviceMetricsOverride", {}, session=sess)
    drain()
    for e in [e for e in events if e.get("sessionId") == sess]:
        m, p = e.get("method"), e.get("params", {})
        if m == "Network.requestWillBeSent":
            u = p["request"]["url"]
            if not u.startswith(url) and not u.startswith("data:"):
                result["requests"].append(u)
        elif m == "Runtime.exceptionThrown":
            result["errors"].append(p["exceptionDetails"].get("text", "exception"))
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            result["errors"].append("console.%s" % p["type"])
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            result["errors"].append("log: " + p["entry"].get("text", ""))
    events[:] = [e for e in events if e.get("sessionId") != sess]
    call("Target.closeTarget", {"targetId": target})
    with open(job["out"], "w") as f:
        json.dump(result, f, indent=1)

for job in jobs["pages"]:
    check(job)
stop()
