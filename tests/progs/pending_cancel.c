/*
 * pending_cancel.c - a thread whose cancellation is pending allocates: it
 * cancels itself (deferred: the cancellation acts at its next cancellation
 * point), allocates through a frame without unwind information (where a
 * profiler's unwinder falls back to its most careful path), notes that
 * malloc returned, frees the block and reaches pthread_testcancel().
 * malloc and free are not cancellation points, so the thread ends there.
 *
 * Expected facts (tests/e2e/pending-cancel.sh), the same as without a
 * profiler: stdout "thread cancelled, malloc returned"; 1 allocation of
 * 100 bytes from no_cfi_alloc, freed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "no_cfi_alloc.h"

static volatile int malloc_returned;

static void *cancelled_thread(void *arg)
{
	void *block;

	(void)arg;
	pthread_cancel(pthread_self());
	block = no_cfi_alloc(100);
	malloc_returned = 1;
	free(block);
	pthread_testcancel();
	return NULL;
}

int main(void)
{
	pthread_t thread;
	void *result;

	if (pthread_create(&thread, NULL, cancelled_thread, NULL) != 0 ||
	    pthread_join(thread, &result) != 0)
		return 1;
	printf("thread %s, malloc %s\n", result == PTHREAD_CANCELED ? "cancelled" : "returned",
	       malloc_returned ? "returned" : "did not return");
	return 0;
}
