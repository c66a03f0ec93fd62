#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The contributing tests' shared copy of the source tree (tests/contributing/).

  tree.py sync SRC TREE   make TREE hold exactly SRC's files (without SRC's
                          top-level build* folders and .git): copy what
                          differs, remove what SRC lacks; a copied file gets
                          the current time, so the next build recompiles
                          what it feeds and nothing else
  tree.py diff SRC TREE   print the files that differ (changed, added,
                          removed), one per line, relative to the root

Every recipe test syncs before it applies its change and after it ran, so
each recipe sees the unchanged tree whatever the one before it did.
"""
import filecmp
import os
import shutil
import sys


def files(root, top_excluded):
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if not top_excluded(d)]
            filenames = [f for f in filenames if not top_excluded(f)]
            rel = ""
        dirnames.sort()
        for name in filenames:
            out.add(os.path.join(rel, name))
        # Symbolic links to folders are entries too, not walked.
        for d in list(dirnames):
            if os.path.islink(os.path.join(dirpath, d)):
                out.add(os.path.join(rel, d))
                dirnames.remove(d)
    return out


def src_excluded(name):
    return name.startswith("build") or name == ".git"


def same(a, b):
    if os.path.islink(a) or os.path.islink(b):
        return os.path.islink(a) and os.path.islink(b) and os.readlink(a) == os.readlink(b)
    return (os.stat(a).st_mode & 0o777) == (os.stat(b).st_mode & 0o777) and \
        filecmp.cmp(a, b, shallow=False)


def differing(src, tree):
    s, t = files(src, src_excluded), files(tree, lambda n: False)
    changed = sorted(p for p in s & t if not same(os.path.join(src, p), os.path.join(tree, p)))
    return changed, sorted(s - t), sorted(t - s)


def sync(src, tree):
    os.makedirs(tree, exist_ok=True)
    changed, added, removed = differing(src, tree)
    for p in removed:
        os.remove(os.path.join(tree, p))
    for p in changed + added:
        a, b = os.path.join(src, p), os.path.join(tree, p)
        os.makedirs(os.path.dirname(b), exist_ok=True)
        if os.path.lexists(b):
            os.remove(b)
        if os.path.islink(a):
            os.symlink(os.readlink(a), b)
        else:
            shutil.copyfile(a, b)
            shutil.copymode(a, b)
    # Folders left empty by removed files.
    for dirpath, dirnames, filenames in os.walk(tree, topdown=False):
        if dirpath != tree and not os.listdir(dirpath):
            os.rmdir(dirpath)
    return len(changed) + len(added) + len(removed)


def main(argv):
    if len(argv) != 4 or argv[1] not in ("sync", "diff"):
        sys.exit("usage: tree.py sync|diff SRC TREE")
    src, tree = os.path.abspath(argv[2]), os.path.abspath(argv[3])
    if argv[1] == "sync":
        n = sync(src, tree)
        print(f"tree.py: {tree} synced with {src}: {n} files copied or removed")
    else:
        changed, added, removed = differing(src, tree)
        for p in sorted(changed + added + removed):
            print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
