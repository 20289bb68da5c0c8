/*
 * preload/wait.h - how the recorder gives way while it waits for another
 * thread or the launcher: a yield and a nap.
 *
 * A seccomp filter may kill the process for a system call its program never
 * makes (an allow-list without sched_yield or nanosleep), so once the
 * recorder knows of a filter (preload/seccomp_watch.h) its waits make no
 * system call: they pause on the processor, and a nap reads the clock
 * through the vDSO.  Must never call malloc.
 */
#ifndef MPROF_PRELOAD_WAIT_H
#define MPROF_PRELOAD_WAIT_H

#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "preload/clock.h"
#include "preload/seccomp_watch.h"
#include "preload/sys.h"

/* Pause instructions that stand in for one sched_yield under a filter (a
 * few microseconds). */
#define PRELOAD_WAIT_YIELD_PAUSES 64u

/* Lets a waiting CPU breathe without giving up its time slice. */
static inline void preload_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#endif
}

/* Gives the processor to other threads for a moment: sched_yield, or under
 * a seccomp filter a burst of pause instructions (no system call). */
static inline void preload_yield(void)
{
	if (seccomp_watch_filtered()) {
		for (unsigned i = 0; i < PRELOAD_WAIT_YIELD_PAUSES; i++)
			preload_cpu_relax();
		return;
	}
	sched_yield();
}

/* Waits about nap (less than a second): nanosleep, or under a seccomp
 * filter pauses on the processor until CLOCK_MONOTONIC (the vDSO's) has
 * moved on by as much.  A signal may end it early either way. */
static inline void preload_nap(const struct timespec *nap)
{
	struct timespec now;
	uint64_t until_ns;

	if (!seccomp_watch_filtered()) {
		sys_nanosleep(nap);
		return;
	}
	preload_clock_gettime(CLOCK_MONOTONIC, &now);
	until_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec +
		   (uint64_t)nap->tv_nsec;
	do {
		for (unsigned i = 0; i < PRELOAD_WAIT_YIELD_PAUSES; i++)
			preload_cpu_relax();
		preload_clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec < until_ns);
}

#endif
