/* SPDX-License-Identifier: MIT */
/*
 * main() for benchmark binaries (the ompbench::main target): it installs the
 * fork guard (ompbench::fork_guard, linked only into benchmark binaries)
 * and runs ompb_main.
 */
#include <ompbench/fork_guard.h>
#include <ompbench/run.h>

int main(int argc, char **argv)
{
    /* Cannot fail: the guard has its watch. */
    (void)ompb_set_fork_guard(&ompb_fork_guard_gnu);
    return ompb_main(argc, argv);
}
