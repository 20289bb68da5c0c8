/*
 * preload/clock.h - the recorder's reads of CLOCK_MONOTONIC and
 * CLOCK_REALTIME, safe after the program forbade the time-stamp counter.
 *
 * On a host whose clocksource is the counter (x86's "tsc"), the vDSO's
 * clock_gettime reads it in user mode, which is a SIGSEGV once the program
 * called prctl(PR_SET_TSC, PR_TSC_SIGSEGV); the system call reads it in the
 * kernel, where the ban does not apply.  After the recorder learns of the
 * ban (ring_clock_use_coarse) its reads take the system call; the coarse
 * clocks (CLOCK_MONOTONIC_COARSE) never read the counter.
 */
#ifndef MPROF_PRELOAD_CLOCK_H
#define MPROF_PRELOAD_CLOCK_H

#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* 1 once the program forbade reading the counter (preload/ring.c). */
extern _Atomic int preload_clock_banned;

/* clock_gettime(clock, ts), by the system call under the ban. */
static inline void preload_clock_gettime(clockid_t clock, struct timespec *ts)
{
	if (__builtin_expect(atomic_load_explicit(&preload_clock_banned, memory_order_relaxed), 0))
		syscall(SYS_clock_gettime, clock, ts);
	else
		clock_gettime(clock, ts);
}

#endif
