/*
 * preload/toggle_signal.h - the signal that toggles recording.
 */
#ifndef MPROF_PRELOAD_TOGGLE_SIGNAL_H
#define MPROF_PRELOAD_TOGGLE_SIGNAL_H

/* Makes signal sig toggle recording, when its disposition is still the
 * default.  Returns 0, or -1 when the program already handles or ignores
 * sig (left as it is) or sig is not a signal. */
int toggle_signal_install(int sig);

#endif
