/*
 * preload/thread_id.c - the calling thread's kernel id without gettid once
 * a seccomp filter may be in force (an allow-list sandbox may kill the
 * process for gettid).
 *
 * glibc keeps each thread's id in its thread descriptor, at the offset it
 * publishes for libthread_db (_thread_db_pthread_tid: size in bits, count,
 * offset).  The place is looked up at the start and trusted only once it
 * gave the calling thread's gettid just before a filter came.  Owns that
 * offset.  Never allocates after the start; makes no system call under a
 * filter.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

#include "preload/init.h"
#include "preload/seccomp_watch.h"
#include "preload/thread_id.h"

/* The id's offset in the descriptor (-1: unknown), and whether it passed
 * the check. */
static intptr_t thread_id_offset = -1;
static _Atomic int thread_id_checked;

void thread_id_start(void)
{
	const uint32_t *field = dlsym(RTLD_DEFAULT, "_thread_db_pthread_tid");

	if (field && field[0] == 8 * sizeof(pid_t) && field[1] <= 1 && field[2] < 4096)
		thread_id_offset = (intptr_t)field[2];
}

/* The id the C library keeps for the calling thread. */
static pid_t thread_id_copy(void)
{
	return *(const pid_t *)((const char *)pthread_self() + thread_id_offset);
}

void thread_id_keep_before_filter(void)
{
	if (thread_id_offset >= 0 && !atomic_load(&thread_id_checked) &&
	    thread_id_copy() == preload_tid())
		atomic_store(&thread_id_checked, 1);
}

pid_t thread_id_own(void)
{
	if (!seccomp_watch_filtered())
		return preload_tid();
	return atomic_load_explicit(&thread_id_checked, memory_order_relaxed) ? thread_id_copy() : 0;
}
