# SPDX-License-Identifier: MIT
# What the trace tests share (sourced by tests/integration/trace_*.sh after
# lib.sh): tool and the test programs' folder, a skip (77) when they are not
# built, and ASan's link-order check off: in the ASan build the preloaded
# library comes before the sanitizer's runtime in the program's library
# list, which ASan refuses by default.
tool="$build/tools/ompbench"
progs="$build/tests/trace"
[ -x "$tool" ] && [ -x "$progs/trace_faults" ] && [ -x "$progs/trace_imbalance" ] \
  || { echo "trace programs not built"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
