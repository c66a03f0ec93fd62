// SPDX-License-Identifier: MIT
//
// ompbench from C++ (tests/integration/cxx_api.sh builds it with g++ and
// clang++, -Wall -Wextra -Wpedantic -Werror, and runs it): benchmarks
// declared with OMPB_BENCH and every option macro, in ompb_benchmark's
// field order as C++ requires (include/ompbench/bench.h, "Language"), a
// region marked in an OpenMP team, and ompb_main() run from the program's
// own main(), which then writes the regions' report to the file named by
// the environment variable CXX_REGIONS (JSON).
#include <ompbench.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

int setup_vec(ompb_state *state)
{
    auto *v = new std::vector<double>(static_cast<size_t>(ompb_arg(state)), 1.0);
    ompb_set_data(state, v);
    return 0;
}

void teardown_vec(ompb_state *state)
{
    delete static_cast<std::vector<double> *>(ompb_data(state));
}

} // namespace

OMPB_BENCH(cxx_sum, OMPB_ARGS(64, 1024), OMPB_THREADS(1, 2), .setup = setup_vec,
           .teardown = teardown_vec)
{
    const auto &v = *static_cast<const std::vector<double> *>(ompb_data(state));
    OMPB_ITER(state) {
        double s = 0;
        for (double x : v)
            s += ompb_opaque_double(x);
        ompb_black_box(s);
    }
}

OMPB_BENCH(cxx_tuple, OMPB_TUPLES(2, {3, 4}, {5, 6}), .sample_size = 100)
{
    int64_t p = ompb_arg_at(state, 0) * ompb_arg_at(state, 1);
    OMPB_ITER(state) {
        ompb_black_box(ompb_opaque_i64(p));
    }
}

int main(int argc, char **argv)
{
    int rc = ompb_main(argc, argv);
    const char *out = std::getenv("CXX_REGIONS");
    if (!out)
        return rc;
    double total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    for (int k = 0; k < 5; k++) {
        ompb_region_begin("cxx_loop");
#pragma omp for nowait
        for (int i = 0; i < 1000; i++)
            total += i;
        ompb_region_end("cxx_loop");
#pragma omp barrier
    }
    std::printf("total=%.0f\n", total);
    if (ompb_regions_report(out, "json") != 0)
        return 1;
    return rc;
}
