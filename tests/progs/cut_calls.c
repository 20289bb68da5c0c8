/*
 * tests/progs/cut_calls.c - a process that ends while a thread is inside
 * an allocator call: the main thread grows a block with realloc, each
 * time with a larger block allocated after it so that the C library copies
 * it (4 MiB and more: most of the thread's time), while a second thread
 * makes one allocation after 20 ms and calls _exit(0): that ends the
 * process in the middle of a realloc (in the recorder, after it took the
 * call's sequence number), whose number then lies below the allocation's.  For
 * tests/e2e/cut-calls.sh.  Exit status 0.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *exit_soon(void *arg)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };

	(void)arg;
	nanosleep(&pause, NULL);
	if (!malloc(16))
		_exit(1);
	_exit(0);
	return NULL;
}

int main(void)
{
	size_t size_bytes = 4u << 20;
	pthread_t th;
	char *p;

	/* in the heap, not mapped: realloc copies instead of remapping */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	p = malloc(size_bytes);
	if (!p)
		return 1;
	memset(p, 1, size_bytes);
	if (pthread_create(&th, NULL, exit_soon, NULL) != 0)
		return 1;
	for (;;) {
		char *q;

		size_bytes += 4096;
		q = realloc(p, size_bytes);
		if (!q)
			return 1;
		p = q;
		/* kept, never touched: too large for the hole p left, it lies
		 * after p, so the next realloc cannot grow p in place */
		if (!malloc(size_bytes + 8192))
			return 1;
	}
}
