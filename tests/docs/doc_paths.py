#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every repository path the docs name exists (the docs.paths test).

A path is named
- from a top folder of the repository (lib/, tools/, tests/, include/,
  benches/, docs/, fuzz/, cmake/, .ci/), anywhere in the text: checked
  from the root; a glob (lib/report/*.c, lib/round*.c) must match a file,
  braces (marks.{c,h}) are expanded, a trailing / names a folder;
- as a relative link target ([text](../CONTRIBUTING.md)): checked from
  the document's folder;
- in strict documents (CONTRIBUTING.md, docs/architecture.md: the module
  map and the recipes) also relative to an include root, as the code
  includes it (`engine/engine.h`, (report/result.c): under lib/ or
  tools/lib/), and as a bare file name in backquotes or parentheses
  (`dump_internal.h`, (round*.c)): some file of lib/, tools/, tests/,
  fuzz/, benches/ or include/ has that name.
Placeholders (lib/<layer>/<concern>.c, tools/<name>.c) and build outputs
(build/...) are not paths of the repository and are skipped; a name
without an extension is also found as a program built from a source of
that name (tests/region_app from tests/region_app.c). Paths the docs name
that are not the repository's (an install tree, another project, the file
a recipe adds) are listed in the --outside file, each with its reason; a
line there that no document names any more is an error too, so the list
only shrinks.

Usage: doc_paths.py --root SRC [--outside FILE] [--strict DOC]... DOC...
Prints one line per missing path (document:line: path) and exits 1 if
there is one, else prints a summary and exits 0.
"""
import argparse
import glob
import os
import re
import sys

ROOTS = ("lib", "tools", "tests", "include", "benches", "docs", "fuzz", "cmake", ".ci")
# A path from a top folder: starts at a word boundary that is not part of
# a longer path (no letter, /, . or - before it).
ROOTED = re.compile(r"(?<![\w/.\-])((?:%s)/[\w.*{},<>/\-]*)" %
                    "|".join(re.escape(r) for r in ROOTS))
LINK = re.compile(r"\]\(([^)\s]+)\)")
QUOTED = re.compile(r"`([^`\s]+)`|\(([\w.*{},/\-]+)[,)]")
SOURCE_EXT = re.compile(r"\.(c|h|sh|py|f90|cmake|txt|in)$")
NAME_ROOTS = ("lib", "tools", "tests", "fuzz", "benches", "include")


def expand_braces(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    out = []
    for alt in m.group(1).split(","):
        out += expand_braces(p[:m.start()] + alt + p[m.end():])
    return out


def exists(base, p):
    """p (a path, a glob or a folder with a trailing /) exists under base;
    a name without an extension may be a program built from p.*."""
    for q in expand_braces(p):
        full = os.path.join(base, q)
        if any(c in q for c in "*?["):
            if not glob.glob(full):
                return False
        elif q.endswith("/"):
            if not os.path.isdir(full):
                return False
        elif not os.path.exists(full):
            if "." in os.path.basename(q) or not glob.glob(glob.escape(full) + ".*"):
                return False
    return True


def clean(tok):
    # Sentence punctuation after a path; a markdown anchor.
    tok = tok.split("#", 1)[0]
    while tok and tok[-1] in ".,;:)'\"":
        tok = tok[:-1]
    return tok


def file_names(root):
    names = set()
    for top in NAME_ROOTS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            names.update(filenames)
    return names


def name_exists(names, tok):
    if any(c in tok for c in "*?["):
        pat = re.compile(glob.fnmatch.translate(tok))
        return any(pat.match(n) for n in names)
    return all(q in names for q in expand_braces(tok))


def read_outside(path):
    out = {}
    if path:
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            line = line.strip()
            if line and not line.startswith("#"):
                tok, _, reason = line.partition(" ")
                if not reason.strip():
                    sys.exit(f"{path}:{n}: '{tok}' has no reason")
                out[tok] = 0
    return out


def check(root, doc, strict, names):
    missing = []
    seen = 0
    docdir = os.path.dirname(os.path.abspath(doc))
    rel = os.path.relpath(doc, root)
    in_code = False
    for lineno, line in enumerate(open(doc, encoding="utf-8"), 1):
        if line.startswith("```"):
            in_code = not in_code
        found = set()
        for m in ROOTED.finditer(line):
            tok = clean(m.group(1))
            if "<" in tok or ">" in tok or tok.rstrip("/") in ROOTS:
                continue
            found.add(tok)
            seen += 1
            if not exists(root, tok):
                missing.append((rel, lineno, tok))
        for m in LINK.finditer(line):
            tok = clean(m.group(1))
            if not tok or re.match(r"^[a-z]+:", tok) or "<" in tok:
                continue
            seen += 1
            if not exists(docdir, tok):
                missing.append((rel, lineno, tok))
        if not strict:
            continue
        for m in QUOTED.finditer(line):
            tok = clean(m.group(1) or m.group(2))
            if (not tok or tok in found or "<" in tok or ">" in tok or "=" in tok
                    or not SOURCE_EXT.search(tok) or tok.startswith(("/", "build", "$", "."))
                    or tok.split("/", 1)[0] in ROOTS):
                continue
            if any(tok in f for f in found):
                continue
            seen += 1
            if "/" in tok:
                bases = [b for b in ("lib", "tools/lib", "include")
                         if os.path.isdir(os.path.join(root, b, tok.split("/", 1)[0]))]
                if not bases:       # not an include path of ours (libuv's src/...)
                    continue
                ok = any(exists(os.path.join(root, b), tok) for b in bases)
            else:
                ok = name_exists(names, tok)
            if not ok:
                missing.append((rel, lineno, tok))
    return seen, missing


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--strict", action="append", default=[])
    ap.add_argument("--outside")
    ap.add_argument("docs", nargs="*")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    names = file_names(root)
    outside = read_outside(a.outside)
    total, missing = 0, []
    strict = [os.path.abspath(d) for d in a.strict]
    # A glob (docs/*.md) is expanded here, so a new document is checked
    # without a new configure.
    named = [p for d in a.docs for p in (sorted(glob.glob(d)) if "*" in d else [d])]
    docs = strict + [d for d in map(os.path.abspath, named) if d not in strict]
    for doc in docs:
        seen, miss = check(root, doc, doc in strict, names)
        total += seen
        for rel, lineno, tok in miss:
            if tok in outside:
                outside[tok] += 1
            else:
                missing.append((rel, lineno, tok))
    for rel, lineno, tok in missing:
        print(f"{rel}:{lineno}: {tok}: no such path in the repository")
    stale = [tok for tok, n in outside.items() if n == 0]
    for tok in stale:
        print(f"{a.outside}: '{tok}' is named by no document (or exists now): remove the line")
    ndocs = len(docs)
    if missing or stale:
        print(f"doc_paths: {len(missing)} of {total} paths named in {ndocs} documents do not exist,"
              f" {len(stale)} stale lines in the --outside list")
        return 1
    print(f"doc_paths: {total} paths named in {ndocs} documents, all exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
