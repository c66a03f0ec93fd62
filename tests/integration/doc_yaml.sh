#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every YAML example in README.md and docs/*.md parses (PyYAML, Debian
# python3-yaml), and a GitHub Actions workflow among them has the shape
# GitHub requires (on, jobs, each job's runs-on and steps, each step a run
# or a uses); every option its `ompbench ab` command lines use is one that
# `ompbench ab --help` lists. Skipped (77) without PyYAML.
# Usage: doc_yaml.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tool=$build/tools/ompbench
/usr/bin/python3 -c 'import yaml' 2>/dev/null || { echo "no PyYAML (python3-yaml)"; exit 77; }
help=$(timeout 30 "$tool" ab --help)
timeout 60 /usr/bin/python3 - "$src" "$help" <<'PY'
import glob, os, re, sys, yaml
src, help_text = sys.argv[1], sys.argv[2]
docs = [os.path.join(src, "README.md")] + sorted(glob.glob(os.path.join(src, "docs", "*.md")))
blocks = []
for doc in docs:
    text = open(doc, encoding="utf-8").read()
    for m in re.finditer(r"^```ya?ml\n(.*?)^```$", text, re.M | re.S):
        blocks.append((os.path.basename(doc), m.group(1)))
assert blocks, "no YAML example in the docs"
known = set(re.findall(r"--[a-z][a-z-]*", help_text))
workflows = 0
for doc, body in blocks:
    try:
        data = yaml.safe_load(body)
    except yaml.YAMLError as e:
        sys.exit("FAIL: %s: YAML example does not parse: %s" % (doc, e))
    if not (isinstance(data, dict) and "jobs" in data):
        continue
    workflows += 1
    # PyYAML reads the key `on` as the boolean True (YAML 1.1).
    assert "on" in data or True in data, "%s: workflow without 'on'" % doc
    for name, job in data["jobs"].items():
        assert "runs-on" in job and isinstance(job.get("steps"), list), "%s: job %s" % (doc, name)
        for step in job["steps"]:
            assert ("run" in step) != ("uses" in step), "%s: step %s" % (doc, step)
            run = step.get("run", "")
            for cmd in re.findall(r"ompbench ab\b(.*)", " ".join(run.split())):
                for opt in re.findall(r"(?<!\S)(--[a-z][a-z-]*)", cmd.split(" -- ")[0]):
                    assert opt in known, "%s: ompbench ab has no option %s" % (doc, opt)
assert workflows >= 1, "no GitHub Actions workflow among the YAML examples"
print("doc yaml: %d example(s) parsed, %d workflow(s) checked" % (len(blocks), workflows))
PY
