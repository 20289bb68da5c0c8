/*
 * slotless_frees.c - threads that allocate without a thread slot and free
 * with one, for tests/e2e/slotless-frees.sh (run with 41 thread slots
 * under an RLIMIT_AS, the main thread's one of them).
 *
 * Expected facts: 80 workers start one at a time, each making its first
 * allocation before the next starts, so workers 0-39 take the 40 slots
 * left and workers 40-79 get none.  All meet at a barrier and make
 * crowd_alloc: 50 x malloc(24) each (2000 recorded, 2000 unrecorded).
 * Before, the main thread made handed_alloc: 40 x malloc(56), one
 * handed to each of workers 40-79, which free it while they have no slot
 * (40 recorded frees of recorded blocks, none lost), and moved_alloc:
 * 40 x malloc(72), which workers 40-79 realloc to 4096 bytes while they
 * have no slot (the release of 40 recorded blocks recorded, the new
 * blocks unrecorded: 40 unrecorded allocations) and free with a slot (40
 * frees of unrecorded blocks).
 * Workers 0-39 free theirs and end; once they are joined, workers 40-79,
 * which get slots now, free theirs: 2000 recorded frees of unrecorded
 * blocks, none unmatched.  Then each makes later_alloc: 50 x malloc(40),
 * freed (2000, all recorded).
 * stdout: "slotless_frees done\n"
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WORKERS 80
#define SLOTTED 40
#define ALLOCS 50

static pthread_barrier_t crowd;
static void *handed[WORKERS - SLOTTED], *moved[WORKERS - SLOTTED];
static sem_t started, freeing;

/* A function that mallocs size bytes (abort when it cannot) and fills
 * them: one allocation site the test names. */
#define SITE(name, size)                                   \
	__attribute__((noinline)) static void *name(void) \
	{                                                  \
		void *p = malloc(size);                    \
                                                           \
		if (!p)                                    \
			abort();                           \
		memset(p, 1, size);                        \
		return p;                                  \
	}

SITE(crowd_alloc, 24)
SITE(handed_alloc, 56)
SITE(moved_alloc, 72)
SITE(later_alloc, 40)

static void *worker(void *arg)
{
	int slotted = (int)(size_t)arg < SLOTTED;
	void *keep[ALLOCS];

	keep[0] = crowd_alloc(); /* the first call: a slot, or none */
	sem_post(&started);
	pthread_barrier_wait(&crowd);
	for (int i = 1; i < ALLOCS; i++)
		keep[i] = crowd_alloc();
	if (!slotted) {
		/* still without a slot */
		void **m = &moved[(size_t)arg - SLOTTED];

		free(handed[(size_t)arg - SLOTTED]);
		*m = realloc(*m, 4096);
		if (!*m)
			abort();
	}
	pthread_barrier_wait(&crowd);
	if (!slotted)
		sem_wait(&freeing); /* until the slotted workers have ended */
	for (int i = 0; i < ALLOCS; i++)
		free(keep[i]);
	if (slotted)
		return NULL;
	free(moved[(size_t)arg - SLOTTED]);
	for (int i = 0; i < ALLOCS; i++)
		keep[i] = later_alloc();
	for (int i = 0; i < ALLOCS; i++)
		free(keep[i]);
	return NULL;
}

int main(void)
{
	pthread_t tids[WORKERS];
	pthread_attr_t attr;

	/* small stacks: 80 of the default 8 MiB do not fit the limit */
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	pthread_barrier_init(&crowd, NULL, WORKERS);
	sem_init(&started, 0, 0);
	sem_init(&freeing, 0, 0);
	for (int i = 0; i < WORKERS - SLOTTED; i++) {
		handed[i] = handed_alloc();
		moved[i] = moved_alloc();
	}
	for (int i = 0; i < WORKERS; i++) {
		if (pthread_create(&tids[i], &attr, worker, (void *)(size_t)i) != 0)
			return 1;
		sem_wait(&started);
	}
	for (int i = 0; i < SLOTTED; i++)
		pthread_join(tids[i], NULL);
	for (int i = SLOTTED; i < WORKERS; i++)
		sem_post(&freeing);
	for (int i = SLOTTED; i < WORKERS; i++)
		pthread_join(tids[i], NULL);
	puts("slotless_frees done");
	return 0;
}
