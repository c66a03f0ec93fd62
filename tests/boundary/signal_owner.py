#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One owner of the signal actions (issue 31, item 3): in lib/ and tools/,
only lib/core/signals.c may call sigaction(), signal(), sysv_signal() or
bsd_signal(); every other part registers with it (lib/core/signals.h).
Comments and string literals are not calls; a member call (ops->signal(),
x.signal()) and a longer name (ompb__signal_name(), strsignal()) are not
either.

Usage: signal_owner.py --root DIR     check the tree at DIR
       signal_owner.py --self-test    the check fails on a fake tree
Exit status: 0 clean, 1 a call outside the owner (each printed FILE:LINE).
"""
import argparse
import os
import re
import sys
import tempfile

OWNER = "lib/core/signals.c"
FOLDERS = ("lib", "tools")
CALL = re.compile(r"(?<![\w.>])(sigaction|signal|sysv_signal|bsd_signal)\s*\(")
TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def blank(text):
    """Comments and literals replaced by spaces, newlines kept."""
    return TOKENS.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def calls(root):
    found = []
    for folder in FOLDERS:
        for base, dirs, files in os.walk(os.path.join(root, folder)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                if rel == OWNER:
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    code = blank(f.read())
                for m in CALL.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    found.append("%s:%d: %s() outside %s" % (rel, line, m.group(1), OWNER))
    return found


def check(root):
    if not os.path.isfile(os.path.join(root, OWNER)):
        print("FAIL: %s not found under %s: update this check" % (OWNER, root))
        return 1
    found = calls(root)
    for f in found:
        print("FAIL: " + f)
    if found:
        print("register with the signal owner instead (lib/core/signals.h)")
        return 1
    print("signal_owner: no sigaction/signal call outside %s" % OWNER)
    return 0


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def self_test():
    clean = ('/* sigaction(2) in a comment */\nstatic const char *s = "signal(";\n'
             'int f(struct ops *o) { return o->signal(1) + ompb__signal_name(2)[0] + '
             'strsignal(3)[0]; }\n')
    bad = {"lib/run/x.c": "void f(void) { sigaction (2, 0, 0); }\n",
           "tools/y.c": "void g(void)\n{\n    signal(2, SIG_DFL);\n}\n",
           "lib/core/z.h": "#define H(s) bsd_signal(s, 0)\n"}
    ok = True
    with tempfile.TemporaryDirectory() as root:
        write(root, OWNER, "int f(void) { return sigaction(2, 0, 0); }\n")
        write(root, "lib/run/clean.c", clean)
        if check(root) != 0:
            print("SELF-TEST FAIL: a clean tree fails")
            ok = False
        for rel, text in bad.items():
            write(root, rel, text)
            found = calls(root)
            if not any(f.startswith(rel + ":") for f in found):
                print("SELF-TEST FAIL: %s's call was not found" % rel)
                ok = False
            os.remove(os.path.join(root, rel))
        if calls(root):
            print("SELF-TEST FAIL: calls left after the fakes were removed")
            ok = False
    with tempfile.TemporaryDirectory() as root:
        if check(root) == 0:
            print("SELF-TEST FAIL: a tree without the owner passes")
            ok = False
    print("signal_owner self-test: %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root")
    ap.add_argument("--self-test", action="store_true")
    a = ap.parse_args()
    if a.self_test:
        return self_test()
    if not a.root:
        ap.error("--root DIR or --self-test")
    return check(a.root)


if __name__ == "__main__":
    sys.exit(main())
