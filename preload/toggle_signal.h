/*
 * preload/toggle_signal.h - the signal that toggles recording.
 */
#ifndef MPROF_PRELOAD_TOGGLE_SIGNAL_H
#define MPROF_PRELOAD_TOGGLE_SIGNAL_H

#define TOGGLE_SIGNAL_REFUSED (-1) /* not a signal that may toggle */
#define TOGGLE_SIGNAL_TAKEN (-2)   /* the program handles or ignores it */

/* Makes signal sig toggle recording (a handler with SA_RESTART), when sig
 * may toggle (trace/session.h session_toggle_signal_ok) and its disposition
 * is still the default.  Returns 0, TOGGLE_SIGNAL_REFUSED for any other sig,
 * or TOGGLE_SIGNAL_TAKEN when the program already handles or ignores sig;
 * then the disposition is left as it was. */
int toggle_signal_install(int sig);

/* When the handler toggle_signal_install put in place is no longer the
 * signal's (the program installed its own), says so once in a DIAG record.
 * One sigaction call; no lock, no allocation. */
void toggle_signal_check(void);

#endif
