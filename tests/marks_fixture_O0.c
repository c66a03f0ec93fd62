/* SPDX-License-Identifier: MIT */
/*
 * The unoptimized half of the fixture of tests/integration/marks.sh: this
 * file alone is compiled with -O0 (tests/CMakeLists.txt), as a CMake
 * project without CMAKE_BUILD_TYPE compiles benchmarks. Its instances are
 * marked unoptimized and the run warns once; marks_fixture.c's are not.
 */
#include <ompbench.h>

OMPB_BENCH(unopt) {
    OMPB_ITER(state) { ompb_black_box(ompb_opaque_u64(7) * 3); }
}
