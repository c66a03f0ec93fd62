#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages ompbench needs to build, test and benchmark,
# only those missing. Used by `make bench` and `make test`.
set -euo pipefail

# openmpi-bin, libopenmpi-dev: ompbench::mpi and the MPI tests (tests/mpi/).
# slurm-wlm: slurmctld, slurmd and the clients for tests/integration/slurm.sh
# (a private one-node cluster with auth/none: munge comes as a dependency
# but is never started).
# libnuma-dev is not needed either: the NUMA page check calls move_pages(2)
# directly (lib/engine/pages.c).
# gfortran: the Fortran module (ompbench::fortran), benches/stencil.F90 and
# tests/integration/fortran_stencil.sh; without it they are not built.
# chromium: the headless browser of tests/integration/report_browser.sh,
# which renders `ompbench report` pages (skipped when it is missing).
# python3-yaml: tests/integration/doc_yaml.sh parses the guide's CI job.
# libelf-dev: libelf (elfutils), which the tool's code identity check reads
# ELF objects with (tools/lib/analysis/codeid.c).
# linux-perf: perf, with which tests/integration/root_frame_perf.sh checks
# that every body sample has CodSpeed's root frame on its stack (skipped
# when perf is missing or cannot record).
# libdw-dev: libdw (elfutils), which names the regions of `ompbench trace`
# by source line (lib/trace/trace_names.c).
# locales: the sources localedef needs for tests/integration/hostile_bodies.sh
# (a comma-decimal locale made in a temporary directory, nothing installed).
# dpkg-dev, debhelper, help2man, lintian: the Debian packages of debian/
# (dpkg-buildpackage, dh, the tool's manual page) and their check,
# tests/package/deb.sh (skipped without them); debian/control's other
# build dependencies are in the list already.
pkgs=(build-essential cmake pkg-config libhwloc-dev hwloc libjansson-dev
      libcunit1-dev valgrind clang libomp-dev libclang-rt-14-dev python3
      python3-scipy libbenchmark-tools libxml2-utils locales libpfm4-dev
      openmpi-bin libopenmpi-dev slurm-wlm gfortran chromium python3-yaml
      libelf-dev libdw-dev linux-perf dpkg-dev debhelper help2man lintian)

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "ompbench: installing missing Debian packages: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "ompbench: not root and no sudo; install these packages first: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get update -qq || ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
  echo "ompbench: apt-get could not install: ${missing[*]}" >&2
  echo "ompbench: install them by hand (Debian 12 package names) and rerun." >&2
  exit 1
fi
