/* SPDX-License-Identifier: MIT */
/* main() for benchmark binaries (the ompbench::main target). */
#include <ompbench/run.h>

int main(int argc, char **argv)
{
    return ompb_main(argc, argv);
}
