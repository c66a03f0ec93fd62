#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The include rule of lib/, tools/ and benches/ (issue 20, item 1; issue 31).

Reads the layers, their allowed edges and the file map from the design file
(tests/boundary/layers.txt) and checks every C file under lib/, tools/ (the
command's files and tools/lib) and benches/ (the examples, and the internal
benches of benches/internal/, which a `reach` line lets past the faces):
- each file belongs to exactly one layer (its folder, or a `map` line while
  the tree is flat);
- each `#include "..."` resolves (the file's folder, then the include roots
  the build uses) to a file of its own layer, a public header, or a layer
  the design allows; with `faces on`, a header of another folder must be
  that folder's face;
- each use of an internal function or object defined in another file (a
  call through the headers) goes to a layer the design allows, too, so that
  a declaration placed low cannot hide an upward call (the public API, what
  include/ declares, may be called from any layer);
- no loop: between headers through their includes, nor between source
  files through their uses;
- every `except` and `loop` line still matches something (a cut edge's line
  is removed with it);
- with --doc, the layer table in that Markdown file is the one this design
  file generates (--print-doc prints it).
It prints one line per violation, naming the file, the line, the edge and
the allowed list, and exits 1; 0 when the tree follows the rule.

Usage: include_rule.py [--root DIR] [--design FILE] [--doc FILE] [--print-doc]
"""
import argparse
import fnmatch
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
IDENT = re.compile(r'\bompb_\w+')
FUNC_DEF = re.compile(r'^(?!static\b|extern\b|typedef\b|struct\b|#)[A-Za-z_][^;=()]*?\b(ompb_\w+)\s*\(')
OBJ_DEF = re.compile(r'^(?!static\b|extern\b|typedef\b|#)[A-Za-z_][\w\s\*]*?\b(ompb_\w+)\s*(?:\[[^\]]*\])?\s*=')


class Design:
    def __init__(self):
        self.layers = {}       # name -> (folder, face, allowed set, line)
        self.order = []
        self.about = {}
        self.maps = []         # (layer, glob)
        self.excepts = []      # [from_file, to_glob, why, used]
        self.loops = []        # [globs, why, used]
        self.faces = False
        self.reach = {}        # layer -> why: it may include any header of
                               # the layers it may use, not only their faces


def fail_design(path, n, msg):
    sys.exit(f"{path}:{n}: {msg}")


def read_design(path):
    d = Design()
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            word, _, rest = line.partition(" ")
            rest = rest.strip()
            if word == "layer":
                head, sep, allowed = rest.partition(":")
                parts = head.split()
                if not sep or len(parts) != 3:
                    fail_design(path, n, "expected 'layer NAME FOLDER FACE : ALLOWED...'")
                name, folder, face = parts
                for a in allowed.split():
                    if a not in d.layers:
                        fail_design(path, n, f"layer {name} allows '{a}', which is not a layer "
                                    "listed before it (the layers form a DAG, bottom first)")
                d.layers[name] = (folder, None if face == "-" else face, set(allowed.split()), n)
                d.order.append(name)
            elif word == "about":
                name, _, text = rest.partition(" ")
                d.about[name] = text.strip()
            elif word == "map":
                parts = rest.split()
                if not parts or parts[0] not in d.layers:
                    fail_design(path, n, f"map to an unknown layer: {line}")
                d.maps += [(parts[0], g, n) for g in parts[1:]]
            elif word == "except":
                edge, sep, why = rest.partition(" : ")
                src, arrow, dst = edge.partition(" -> ")
                if not sep or not arrow:
                    fail_design(path, n, "expected 'except FILE -> GLOB : WHY'")
                d.excepts.append([src.strip(), dst.strip(), why.strip(), False, n])
            elif word == "loop":
                globs, sep, why = rest.partition(" : ")
                if not sep:
                    fail_design(path, n, "expected 'loop GLOB... : WHY'")
                d.loops.append([globs.split(), why.strip(), False, n])
            elif word == "reach":
                name, sep, why = rest.partition(" : ")
                if not sep or name.strip() not in d.layers:
                    fail_design(path, n, "expected 'reach LAYER : WHY' after the layer's line")
                d.reach[name.strip()] = why.strip()
            elif word == "faces":
                d.faces = rest == "on"
            else:
                fail_design(path, n, f"unknown line: {line}")
    return d


def glob_match(path, pattern):
    """fnmatch per path segment: '*' never crosses a '/'."""
    a, b = path.split("/"), pattern.split("/")
    return len(a) == len(b) and all(fnmatch.fnmatchcase(x, y) for x, y in zip(a, b))


def layer_of(d, path):
    """(layer, how): the folder it lives in, else its map line; None if neither."""
    best = None
    for name in d.order:
        folder = d.layers[name][0]
        if path.startswith(folder + "/") and (best is None or len(folder) > len(d.layers[best][0])):
            best = name
    if best:
        return best
    hits = {layer for layer, g, _ in d.maps if glob_match(path, g)}
    if len(hits) > 1:
        return "ambiguous:" + ",".join(sorted(hits))
    return hits.pop() if hits else None


def strip_comments(text):
    """C text without comments and string literals, lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def sources(root):
    for top in ("lib", "tools", "benches"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(dirpath, f), root).replace(os.sep, "/")


def roots_for(path):
    return (["tools/lib", "include", "lib"] if path.startswith("tools/")
            else ["include", "lib"])


def face_path(folder, face):
    """The face's path in the tree: relative to the include root the folder
    sits in ("core/core.h" of lib/core is lib/core/core.h), or, when it
    does not start with the folder's own name, to the folder itself
    ("collector.h" of tools/lib is tools/lib/collector.h)."""
    if face.split("/")[0] == os.path.basename(folder):
        return os.path.dirname(folder) + "/" + face
    return folder + "/" + face


def resolve(root, path, name):
    for base in [os.path.dirname(path)] + roots_for(path):
        cand = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def find_cycles(nodes, edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 or v in edges.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def shortest_cycle(comp, edges):
    """A shortest path from comp[0] back to itself inside the component."""
    inside, start = set(comp), comp[0]
    prev, queue = {start: None}, [start]
    for v in queue:
        for w in sorted(edges.get(v, ())):
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return [start] + path[::-1][1:] + [start] if v != start else [start, start]
            if w in inside and w not in prev:
                prev[w] = v
                queue.append(w)
    return comp + comp[:1]


class Checker:
    def __init__(self, root, design):
        self.root, self.d = root, design
        self.errors = []

    def error(self, msg):
        self.errors.append(msg)

    def allowed_text(self, layer):
        allowed = sorted(self.d.layers[layer][2], key=self.d.order.index)
        return " ".join(allowed) if allowed else "nothing but public headers"

    def excepted(self, src, dst):
        # An include of a folder's face stands for the headers the face
        # includes: a known edge to one of them is that include.
        targets = [dst] + self.face_members(dst)
        for e in self.d.excepts:
            if e[0] == src and any(glob_match(t, e[1]) for t in targets):
                e[3] = True
                return True
        return False

    def face_members(self, path):
        faces = {face_path(folder, face) for folder, face, _, _ in self.d.layers.values() if face}
        if path not in faces or path not in self.text:
            return []
        return [t for t in (resolve(self.root, path, m.group(1))
                             for m in map(INCLUDE.match, self.text[path].splitlines()) if m) if t]

    def edge_ok(self, src, dst, lsrc, ldst):
        if ldst in (None, "public") or lsrc == ldst or ldst in self.d.layers[lsrc][2]:
            return True
        return self.excepted(src, dst)

    def run(self):
        files = list(sources(self.root))
        self.layer = {}
        for f in files:
            lay = layer_of(self.d, f)
            if lay is None:
                self.error(f"{f}: belongs to no layer: move it into a layer's folder, or add "
                           "a map line for it to the design file")
            elif lay.startswith("ambiguous:"):
                self.error(f"{f}: matches the map lines of several layers ({lay[10:]})")
            else:
                self.layer[f] = lay
        self.text = {}
        for f in files:
            with open(os.path.join(self.root, f), encoding="utf-8", errors="replace") as fh:
                self.text[f] = fh.read()
        incs = self.check_includes(files)
        self.check_uses(files)
        for cyc in find_cycles(files, incs):
            self.loop(cyc, incs, "headers include each other")
        self.check_stale()

    def check_includes(self, files):
        edges = {}
        for f in files:
            for n, line in enumerate(self.text[f].splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(self.root, f, m.group(1))
                if target is None:
                    continue  # generated or external: not the tree's
                if target.startswith(("lib/", "tools/", "benches/")):
                    edges.setdefault(f, set()).add(target)
                self.check_include(f, n, m.group(1), target)
        return edges

    def check_include(self, f, n, name, target):
        src = self.layer.get(f)
        if not src:
            return
        dst = "public" if target.startswith("include/") else self.layer.get(target)
        if not self.edge_ok(f, target, src, dst):
            self.error(f"{f}:{n}: includes \"{name}\" ({target}): {src} -> {dst} is not "
                       f"allowed ({src} may include: {self.allowed_text(src)})")
            return
        folder, face = self.d.layers[dst][:2] if dst in self.d.layers else (None, None)
        if (self.d.faces and dst != src and face and src not in self.d.reach
                and target.startswith(folder + "/")
                and target != face_path(folder, face)):
            self.error(f"{f}:{n}: includes \"{name}\": from outside {folder}/ include its "
                       f"face \"{face}\" only")

    def definitions(self, files):
        defs = {}
        for f in files:
            if not f.endswith(".c"):
                continue
            for line in strip_comments(self.text[f]).splitlines():
                fm, om = FUNC_DEF.match(line), OBJ_DEF.match(line)
                if fm and not line.rstrip().endswith(";"):   # not a prototype
                    defs.setdefault(fm.group(1), f)
                elif om:                                     # an initialized object
                    defs.setdefault(om.group(1), f)
        return defs

    def public_names(self):
        """Names the public headers declare: callable from any layer."""
        names = set()
        for dirpath, _, fs in os.walk(os.path.join(self.root, "include")):
            for f in fs:
                if f.endswith(".h"):
                    with open(os.path.join(dirpath, f), encoding="utf-8", errors="replace") as fh:
                        names |= set(IDENT.findall(strip_comments(fh.read())))
        return names

    def check_uses(self, files):
        defs = self.definitions(files)
        public = self.public_names()
        self.uses = {}
        for f in files:
            if not f.endswith(".c") or f not in self.layer:
                continue
            for n, line in enumerate(strip_comments(self.text[f]).splitlines(), 1):
                for name in IDENT.findall(line):
                    g = defs.get(name)
                    if not g or g == f or g not in self.layer:
                        continue
                    if g not in self.uses.setdefault(f, set()):
                        self.uses[f].add(g)
                        if name not in public:
                            self.check_use(f, n, name, g)
        for cyc in find_cycles([f for f in files if f.endswith(".c")], self.uses):
            self.loop(cyc, self.uses, "these files call each other")

    def check_use(self, f, n, name, g):
        src, dst = self.layer[f], self.layer[g]
        if not self.edge_ok(f, g, src, dst):
            self.error(f"{f}:{n}: calls {name} ({g}): {src} -> {dst} is not allowed "
                       f"({src} may use: {self.allowed_text(src)})")

    def loop(self, comp, edges, what):
        for lp in self.d.loops:
            if all(any(glob_match(c, g) for g in lp[0]) for c in comp):
                lp[2] = True
                return
        path = shortest_cycle(comp, edges)
        more = f" (the loop joins {len(comp)} files: {', '.join(comp)})" if len(comp) > len(path) - 1 else ""
        self.error(f"loop: {what}: {' -> '.join(path)}{more}")

    def check_stale(self):
        for e in self.d.excepts:
            if not e[3]:
                self.error(f"design line {e[4]}: 'except {e[0]} -> {e[1]}' matches no edge any "
                           "more: remove the line")
        for lp in self.d.loops:
            if not lp[2]:
                self.error(f"design line {lp[3]}: 'loop {' '.join(lp[0])}' matches no loop any "
                           "more: remove the line")


def doc_table(d):
    rows = ["| layer | folder | face | may include | what |", "|---|---|---|---|---|"]
    for name in d.order:
        folder, face, allowed, _ = d.layers[name]
        allowed = " ".join(sorted(allowed, key=d.order.index)) or "public headers only"
        rows.append(f"| {name} | `{folder}/` | {('`' + face + '`') if face else '-'} | "
                    f"{allowed} | {d.about.get(name, '')} |")
    return "\n".join(rows) + "\n"


def check_doc(d, path):
    begin, end = "<!-- layers: generated from tests/boundary/layers.txt -->", "<!-- layers: end -->"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if begin not in text or end not in text:
        return [f"{path}: no layer table between '{begin}' and '{end}'"]
    have = text.split(begin, 1)[1].split(end, 1)[0].strip("\n") + "\n"
    if have != doc_table(d):
        return [f"{path}: the layer table differs from the design file; replace it with the "
                "output of include_rule.py --print-doc"]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--design")
    ap.add_argument("--doc")
    ap.add_argument("--print-doc", action="store_true")
    args = ap.parse_args()
    design = args.design or os.path.join(args.root, "tests", "boundary", "layers.txt")
    d = read_design(design)
    if args.print_doc:
        sys.stdout.write(doc_table(d))
        return 0
    c = Checker(args.root, d)
    c.run()
    if args.doc:
        c.errors += check_doc(d, args.doc)
    for e in c.errors:
        print("FAIL: " + e)
    if c.errors:
        print(f"include_rule: {len(c.errors)} violation(s) of {design}")
        return 1
    n_files = len(c.layer)
    n_inc = sum(1 for f in c.text for l in c.text[f].splitlines() if INCLUDE.match(l))
    print(f"include_rule: {n_files} files in {len(d.order)} layers, {n_inc} includes, "
          f"{sum(len(v) for v in c.uses.values())} cross-file uses: all allowed, no loop "
          f"({len(d.excepts)} known edges and {len(d.loops)} known loops listed to cut)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
