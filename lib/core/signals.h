/* SPDX-License-Identifier: MIT */
/*
 * What every module that stops the process of a signal does alike: name
 * the signal, ignore its repeats while a report is written, and end the
 * process of it. Pure helpers with no state: the body guard
 * (lib/engine/body_guard.c), the run (lib/run/) and the region report
 * (lib/regions/) use them, so they sit below all three.
 */
#ifndef OMPB_CORE_SIGNALS_H
#define OMPB_CORE_SIGNALS_H

/* "SIGINT", "SIGTERM", "SIGHUP", and the crash signals of lib/core/crash.h
 * ("SIGSEGV", ...); "signal" for any other. Async-signal-safe. */
const char *ompb__signal_name(int sig);

/* While the report of a run stopped by sig is written: further deliveries
 * of sig are ignored. They repeat the request being honoured: timeout(1)
 * sends its signal to the child and again to its process group, a
 * terminal's Ctrl-C reaches a --processes child and its parent, which
 * passes it on. Any other signal still ends the process. */
void ompb__signal_ignore_repeats(int sig);

/* Ends the process of sig, with its default action (the shell reports
 * 128 + sig). */
_Noreturn void ompb__signal_die_of(int sig);

#endif
