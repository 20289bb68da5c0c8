/*
 * stalled_tick_shim.c - a preload library whose CLOCK_MONOTONIC_COARSE
 * moves in 60 ms steps, as the coarse clock of a virtual machine does when
 * its host holds the kernel's tick (the kernel forces it on after 5 ticks,
 * 20 ms at HZ 250, and later still under load): every other clock is the
 * real one.  Preloaded after mprof's recorder, it answers the recorder's
 * clock_gettime calls too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <time.h>

#define STEP_NS 60000000ull

int clock_gettime(clockid_t id, struct timespec *ts)
{
	static int (*real)(clockid_t, struct timespec *);
	uint64_t ns;
	int rc;

	if (!real)
		real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
	if (id != CLOCK_MONOTONIC_COARSE)
		return real(id, ts);
	rc = real(CLOCK_MONOTONIC, ts);
	if (rc == 0) {
		ns = (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
		ns -= ns % STEP_NS;
		ts->tv_sec = (time_t)(ns / 1000000000ull);
		ts->tv_nsec = (long)(ns % 1000000000ull);
	}
	return rc;
}
