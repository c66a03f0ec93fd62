#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The region hot path allocates a bounded number of times after a name's
# first use, as documented (tests/region_alloc.c counts every allocation
# of the statically linked library over 5000 instances, serial and in a
# team of 2).
set -uo pipefail
build=$1
bin="$build/tests/region_alloc"
[ -x "$bin" ] || { echo "SKIP: $bin not built"; exit 77; }
OMPB_REGIONS_OUTPUT=/dev/null timeout 120 "$bin"
