# SPDX-License-Identifier: MIT
# What the trace tests share (sourced by tests/integration/trace_*.sh after
# lib.sh): tool and the test programs' folder, a skip (77) when they are not
# built; ASan's link-order check off (in the ASan build the preloaded
# library comes before the sanitizer's runtime in the program's library
# list, which ASan refuses by default) and its SIGSEGV handler too (a
# crashing program dies of the signal, as in the Release build); regions
# named by symbol (OMPB_TRACE_NAMING=symbol), the same in a build with line
# tables (Debug) as in one without (Release): a check of FILE:LINE names
# asks for them (OMPB_TRACE_NAMING=line).
tool="$build/tools/ompbench"
progs="$build/tests/trace"
[ -x "$tool" ] && [ -x "$progs/trace_faults" ] && [ -x "$progs/trace_imbalance" ] \
  || { echo "trace programs not built"; exit 77; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0:handle_segv=0"
export OMPB_TRACE_NAMING=symbol
