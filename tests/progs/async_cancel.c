/*
 * async_cancel.c - threads cancelled while they allocate: in each of 150
 * rounds four threads start and allocate without end (a chain of six nested
 * blocks, 16..21 bytes, freed on the way back), two of them cancelable
 * asynchronously after their first chain (then cancelled wherever they
 * are, inside the recorder too, but not inside glibc's arena lock), two
 * deferred (cancelled at pthread_testcancel after a chain); main cancels
 * and joins them 1 ms later, then allocates and frees 100 blocks of 100
 * bytes in main_churn.  First main sets its own cancelability type to an
 * invalid value, to asynchronous and back (pthread_setcanceltype is wrapped
 * by the recorder) and prints what the calls returned.
 *
 * Expected facts (tests/e2e/async-cancel.sh), the same as without a
 * profiler: stdout "setcanceltype: 22 0 0 1" then "cancelled 600"; exit
 * status 0; main_churn 15000
 * allocations of 1,500,000 bytes, none live at exit.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ROUNDS 150
#define THREADS 4

void *volatile sink; /* keeps the compiler from eliding a malloc/free pair */

static void __attribute__((noinline)) chain_alloc(int depth)
{
	void *block = malloc(16 + (size_t)depth);

	sink = block;
	if (depth)
		chain_alloc(depth - 1);
	free(sink = block);
}

static void *worker(void *arg)
{
	int asynchronous = (int)(long)arg;

	/* a new thread's first blocks come from glibc's arena, under its lock,
	 * and its cache is made there: cancelled there asynchronously it would
	 * leave that lock held and hang the next thread to need it (natively
	 * too: 2 runs in 40).  Later chains are served from the thread's cache
	 * (six blocks of one size class, seven kept), which takes no lock. */
	chain_alloc(5);
	if (asynchronous)
		pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	for (;;) {
		chain_alloc(5);
		if (!asynchronous)
			pthread_testcancel();
	}
	return NULL;
}

static void __attribute__((noinline)) main_churn(void)
{
	for (int i = 0; i < 100; i++)
		free(sink = malloc(100));
}

int main(void)
{
	long cancelled = 0;
	int bad, to_async, old_async = -1, old_deferred = -1;

	bad = pthread_setcanceltype(7, NULL);
	to_async = pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old_async);
	pthread_setcanceltype(PTHREAD_CANCEL_DEFERRED, &old_deferred);
	printf("setcanceltype: %d %d %d %d\n", bad, to_async, old_async, old_deferred);

	for (int r = 0; r < ROUNDS; r++) {
		pthread_t t[THREADS];

		for (int i = 0; i < THREADS; i++)
			if (pthread_create(&t[i], NULL, worker, (void *)(long)(i & 1)) != 0)
				return 1;
		usleep(1000);
		for (int i = 0; i < THREADS; i++)
			pthread_cancel(t[i]);
		for (int i = 0; i < THREADS; i++) {
			void *result;

			pthread_join(t[i], &result);
			cancelled += result == PTHREAD_CANCELED;
		}
		main_churn();
	}
	printf("cancelled %ld\n", cancelled);
	return 0;
}
