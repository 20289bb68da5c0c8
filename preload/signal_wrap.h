/*
 * preload/signal_wrap.h - the exported functions that set a signal's
 * disposition (sigaction, signal and their kin), which see the program
 * take the toggle signal (preload/toggle_signal.h).
 */
#ifndef MPROF_PRELOAD_SIGNAL_WRAP_H
#define MPROF_PRELOAD_SIGNAL_WRAP_H

/* Looks the C library's definitions up (dlsym may allocate: at the
 * recorder's start, not first in a signal handler). */
void signal_wrap_resolve(void);

#endif
