/*
 * trace/event_clock.h - the recorder's cheap count of time passing, which
 * decides when an exact-mode event gets a fresh TIME record (preload/ring.h
 * ring_time_fresh), and the launcher's reading of its grain for the trace's
 * time_resolution_ns.  Header only; never allocates.
 *
 * On x86 it is the time-stamp counter (some 25 cycles, 12 ns in a KVM
 * guest; not ordered against the code around it, which a millisecond's
 * grain does not mind); elsewhere, and in a process that forbade reading
 * the counter (prctl PR_SET_TSC), CLOCK_MONOTONIC_COARSE in ns.  The coarse
 * clock alone is not enough where the counter exists: it moves with the
 * kernel's tick, which a virtual machine's host can hold for 20 ms and more
 * (the kernel forces the tick on after 5 ticks stalled), and a block freed
 * 10 ms after its allocation then got the allocation's stamp.
 */
#ifndef MPROF_TRACE_EVENT_CLOCK_H
#define MPROF_TRACE_EVENT_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <sys/prctl.h>
#include <x86intrin.h>
#define EVENT_CLOCK_IS_TSC 1
#else
#define EVENT_CLOCK_IS_TSC 0
#endif

/* Ticks of the counter between two TIME records of a thread that records
 * events: 2^22, 0.8-4 ms at 1-5 GHz. */
#define EVENT_CLOCK_TSC_TICKS_PER_TIME (UINT64_C(1) << 22)

/* The counter now; only differences mean anything (a counter that differs
 * between processors can run backwards across a migration, which makes a
 * TIME due: harmless).  Only where EVENT_CLOCK_IS_TSC, and only in a thread
 * that may read it (event_clock_tsc_allowed). */
static inline uint64_t event_clock_tsc(void)
{
#if EVENT_CLOCK_IS_TSC
	return __rdtsc();
#else
	return 0;
#endif
}

/* CLOCK_MONOTONIC_COARSE in ns: the event clock where the counter is not
 * there or not allowed, due for a TIME at any move (one scheduler tick). */
static inline uint64_t event_clock_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1 when the calling thread may read the counter: it exists, and
 * prctl(PR_SET_TSC, PR_TSC_SIGSEGV), which makes reading it a SIGSEGV and
 * which execve keeps, is not in force (one system call). */
static inline int event_clock_tsc_allowed(void)
{
#if EVENT_CLOCK_IS_TSC
	int mode = 0;

	return prctl(PR_GET_TSC, &mode, 0, 0, 0) != 0 || mode != PR_TSC_SIGSEGV;
#else
	return 0;
#endif
}

#endif
