/*
 * cli/launcher_wake.h - lets the recorders wake the collector from a long
 * idle wait, through the launcher file's wake word (trace/session.h).
 */
#ifndef MPROF_CLI_LAUNCHER_WAKE_H
#define MPROF_CLI_LAUNCHER_WAKE_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * Starts a thread that waits on *word (a futex word in a shared file
 * mapping, 0 while the launcher runs) and makes an eventfd readable each
 * time a recorder wakes it.  Returns that eventfd (owned here), or -1 when
 * word is NULL or the thread cannot start: the collector then never sleeps
 * long.
 */
int launcher_wake_start(_Atomic uint32_t *word);

/* Reads the eventfd empty (the collector polls it, then calls this). */
void launcher_wake_drain(void);

/* Stores 1 in the word and wakes the thread, which ends. */
void launcher_wake_stop(void);

#endif
