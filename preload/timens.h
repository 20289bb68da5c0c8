/*
 * preload/timens.h - CLOCK_MONOTONIC as the launcher reads it, for an
 * image in a time namespace whose clock is offset from the launcher's
 * (preload/timens.c).
 */
#ifndef MPROF_PRELOAD_TIMENS_H
#define MPROF_PRELOAD_TIMENS_H

#include <stdint.h>
#include <time.h>

/* Reads this image's offset and the launcher's (SESSION_ENV_LAUNCHER_TIMENS);
 * called once by the initializing thread. */
void timens_start(void);

/* CLOCK_MONOTONIC now in ns, in the launcher's time namespace: what every
 * time the launcher compares with its own or another process's is taken
 * with (process file serials, TIME records, exit and reap times).  Never
 * allocates. */
uint64_t timens_mono_ns(void);

/* A CLOCK_MONOTONIC reading of this image, in the launcher's time namespace, ns. */
uint64_t timens_launcher_ns(const struct timespec *ts);

#endif
