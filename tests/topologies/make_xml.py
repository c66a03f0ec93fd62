#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the XML machines of the golden corpus (tests/topologies/*.xml) that
hwloc's synthetic descriptions cannot express: hybrid CPUs (cores of two
kinds, SMT on one kind only, hwloc cpukinds) and a machine whose cgroup
allows only part of it (a Slurm job's cpuset). Run it from anywhere; it
rewrites the files next to it. Each file starts with a comment stating the
model and the cases the driver (tests/integration/golden_plans.sh) runs."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


def cpuset_text(pus):
    """hwloc's bitmap text: 32-bit words, most significant first."""
    mask = 0
    for p in pus:
        mask |= 1 << p
    words = []
    while True:
        words.append("0x%08x" % (mask & 0xFFFFFFFF))
        mask >>= 32
        if not mask:
            break
    return ",".join(reversed(words))


class Obj:
    def __init__(self, type_, kids=(), os_index=None, attrs=None, pu=None):
        self.type, self.kids, self.os_index = type_, list(kids), os_index
        self.attrs, self.pu = dict(attrs or {}), pu

    def pus(self):
        if self.type == "PU":
            return [self.pu]
        return [p for k in self.kids for p in k.pus()]


def cache(level, size, kids):
    return Obj("L%dCache" % level, kids, attrs={"cache_size": str(size), "depth": str(level),
                                                "cache_linesize": "64",
                                                "cache_associativity": "0", "cache_type": "0"})


def core(index, pus):
    return Obj("Core", [Obj("PU", os_index=p, pu=p) for p in pus], os_index=index)


def emit(obj, allowed, parent_el, numa, gp):
    cs = cpuset_text(obj.pus())
    a = {"type": obj.type}
    if obj.os_index is not None:
        a["os_index"] = str(obj.os_index)
    a.update(cpuset=cs, complete_cpuset=cs)
    if obj.type == "Machine":
        a["allowed_cpuset"] = cpuset_text(sorted(set(obj.pus()) & allowed))
    a.update(nodeset=numa, complete_nodeset=numa)
    if obj.type == "Machine":
        a["allowed_nodeset"] = numa
    if obj.type == "NUMANode":
        a["local_memory"] = obj.attrs.pop("local_memory")
    a.update(obj.attrs)
    gp[0] += 1
    a["gp_index"] = str(gp[0])
    el = ET.SubElement(parent_el, "object", a)
    for k in obj.kids:
        emit(k, allowed, el, numa, gp)
    return el


def write(name, comment, machine, kinds=(), allowed=None):
    """machine: the Package objects' list; one NUMA node of 16 GiB."""
    numa = "0x00000001"
    pus = [p for pk in machine for p in pk.pus()]
    node = Obj("NUMANode", os_index=0, attrs={"local_memory": str(16 << 30)})
    node.pus = lambda: pus
    root = Obj("Machine", [node] + machine, os_index=0)
    top = ET.Element("topology", {"version": "2.0"})
    emit(root, set(pus) if allowed is None else set(allowed), top, numa, [0])
    for pus_, efficiency, infos in kinds:
        k = ET.SubElement(top, "cpukind", {"cpuset": cpuset_text(pus_),
                                           "forced_efficiency": str(efficiency)})
        for key, value in infos:
            ET.SubElement(k, "info", {"name": key, "value": value})
    ET.indent(top)
    path = os.path.join(HERE, name)
    with open(path, "w") as f:
        f.write('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<!DOCTYPE topology SYSTEM "hwloc2.dtd">\n<!--\n%s\n-->\n' % comment.strip())
        f.write(ET.tostring(top, encoding="unicode") + "\n")
    check = subprocess.run(["lstopo-no-graphics", "-i", path, "--of", "console"],
                           capture_output=True, text=True)
    if check.returncode != 0 or check.stderr:
        sys.exit("%s: hwloc does not load it: %s" % (name, check.stderr))


def alder_lake():
    """Intel Core i7-1260P: 4 P-cores (SMT2, own 1.25 MB L2, Linux numbers a
    P-core's siblings 2c and 2c+1) then 8 E-cores (no SMT, 2 clusters of 4
    sharing a 2 MB L2) numbered 8-15; one 18 MB L3."""
    p = [cache(2, 1280 << 10, [core(c, [2 * c, 2 * c + 1])]) for c in range(4)]
    e = [cache(2, 2 << 20, [core(4 + 4 * g + i, [8 + 4 * g + i]) for i in range(4)])
         for g in range(2)]
    pkg = Obj("Package", [cache(3, 18 << 20, p + e)], os_index=0)
    write("laptop-alderlake.xml", """
Model: 1-socket laptop, Intel Core i7-1260P (Alder Lake): 4 P-cores with
SMT2 (PUs 0-7, siblings 2c and 2c+1 as Linux numbers them) and 8 E-cores
without SMT (PUs 8-15, two clusters of 4 sharing an L2), one L3, one NUMA
node; hwloc cpukinds: E-cores efficiency 0 (IntelAtom), P-cores 1
(IntelCore). Written by tests/topologies/make_xml.py.
threads: 1 4 12 16
domains: S0:0-3@S0:12-15
cpus: 0-1
""", [pkg], kinds=[(range(8, 16), 0, [("CoreType", "IntelAtom"), ("FrequencyMaxMHz", "3400")]),
                   (range(0, 8), 1, [("CoreType", "IntelCore"), ("FrequencyMaxMHz", "4700")])])


def apple_m2():
    """Apple M2 under Asahi Linux: 4 E-cores (Blizzard) are CPUs 0-3, then 4
    P-cores (Avalanche) CPUs 4-7; each cluster shares one L2, no SMT, no L3."""
    e = cache(2, 4 << 20, [core(c, [c]) for c in range(4)])
    p = cache(2, 16 << 20, [core(c, [c]) for c in range(4, 8)])
    pkg = Obj("Package", [e, p], os_index=0)
    write("laptop-m2.xml", """
Model: 1-socket laptop, Apple M2 under Asahi Linux: 4 E-cores (PUs 0-3,
one shared 4 MB L2) numbered before 4 P-cores (PUs 4-7, one shared 16 MB
L2), no SMT, one NUMA node; hwloc cpukinds: E-cores efficiency 0, P-cores 1.
Written by tests/topologies/make_xml.py.
threads: 1 4 8
domains: C1:0-3@C0:0-3
cpus: 0-1
""", [pkg], kinds=[(range(0, 4), 0, [("FrequencyMaxMHz", "2424")]),
                   (range(4, 8), 1, [("FrequencyMaxMHz", "3504")])])


def slurm_cpuset():
    """2 sockets x 16 cores x SMT2 (Linux numbering: c and c + 32), and a job
    cgroup that allows cores 16-23 (half of socket 1) with their siblings."""
    pkgs = [Obj("Package", [cache(3, 40 << 20, [core(c, [c, c + 32])
                                                for c in range(16 * s, 16 * s + 16)])],
                os_index=s) for s in range(2)]
    allowed = list(range(16, 24)) + list(range(48, 56))
    write("slurm-cpuset.xml", """
Model: a Slurm job's cgroup cpuset on a 2-socket x86 node (2 x 16 cores x
SMT2, one L3 per socket, Linux numbering: core c's siblings are c and c+32):
the job got half the cores of socket 1, cores 16-23 with their siblings
(PUs 16-23,48-55); the other PUs are disallowed (hwloc allowed_cpuset), as
srun with 16 CPUs per task and task/cgroup would leave them.
Written by tests/topologies/make_xml.py.
threads: 1 8 16
domains: S1:0-3@S1:8-11
cpus: 16,48
""", pkgs, allowed=allowed)


if __name__ == "__main__":
    alder_lake()
    apple_m2()
    slurm_cpuset()
