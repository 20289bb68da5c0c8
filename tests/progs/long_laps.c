/*
 * long_laps.c - three threads allocate in two phases 1 s apart, enough
 * events that small rings (MPROF_RING_KIB) wrap many times in each phase,
 * for the chunk index tests (tests/e2e/chunk-index.sh): a report from a
 * time in the pause can leave out the laps of phase 1.
 *
 * Each thread, phase 1: 30000 allocations of 16 + k % 48 bytes
 * (k = 0..29999: 1185000 bytes) at phase_one, each freed 32 allocations
 * later but every 1000th, which is carried over (30 blocks); the last 32
 * freed at the end of phase 1.  Pause of 1 s.  Phase 2: the 30 carried
 * blocks freed, then 30000 allocations at phase_two as in phase 1, each
 * freed 32 allocations later but the last 10, leaked.
 *
 * Expected facts (3 threads):
 *   phase_one: 90000 allocations, 3555000 bytes, 0 live at exit;
 *   phase_two: 90000 allocations, 3555000 bytes, 30 blocks live at exit
 *   (k = 29990..29999 of each thread, 54..63 bytes: 3 x 585 = 1755 bytes);
 *   from the pause on: 90 frees of blocks allocated before it.
 * stdout: "laps done\n" (written with write(2): no stdio buffer).
 * Usage: long_laps [PAUSE_MS [READY]]: the pause (default 1000 ms); READY,
 * a file created once every thread has ended phase 1 (the pause has begun).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define THREADS 3
#define PER_PHASE 30000
#define KEPT 32
#define CARRY_EVERY 1000
#define LEAKED 10

static unsigned pause_ms = 1000;
static const char *ready_path;
static atomic_int phase_one_done;

__attribute__((noinline)) static void *phase_one(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void *phase_two(size_t n)
{
	return malloc(n);
}

/* One phase: allocations through fn, each freed KEPT allocations later;
 * every CARRY_EVERY-th goes to carry instead (when given); the last keep
 * are left live. */
static void phase(void *(*fn)(size_t), void **carry, size_t keep)
{
	void *ring[KEPT] = {0};
	size_t carried = 0;

	for (size_t k = 0; k < PER_PHASE; k++) {
		void *p = fn(16 + k % 48);

		if (carry && k % CARRY_EVERY == CARRY_EVERY - 1) {
			carry[carried++] = p;
			continue;
		}
		free(ring[k % KEPT]);
		ring[k % KEPT] = p;
	}
	/* the last allocations stay in the ring; free all but keep of them */
	for (size_t i = 0, left = 0; i < KEPT; i++) {
		size_t slot = (PER_PHASE - 1 - i) % KEPT; /* newest first */

		if (left < keep && ring[slot]) {
			left++;
			continue;
		}
		free(ring[slot]);
	}
}

static void *worker(void *arg)
{
	void *carry[PER_PHASE / CARRY_EVERY];
	struct timespec ts = {pause_ms / 1000, (long)(pause_ms % 1000) * 1000000L};

	(void)arg;
	phase(phase_one, carry, 0);
	/* the last thread to end phase 1 says so (open(2): no allocation) */
	if (atomic_fetch_add(&phase_one_done, 1) == THREADS - 1 && ready_path) {
		int fd = open(ready_path, O_WRONLY | O_CREAT | O_EXCL, 0600);

		if (fd >= 0)
			close(fd);
	}
	nanosleep(&ts, NULL);
	for (size_t i = 0; i < PER_PHASE / CARRY_EVERY; i++)
		free(carry[i]);
	phase(phase_two, NULL, LEAKED);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[THREADS];
	static const char done[] = "laps done\n";

	if (argc > 1)
		pause_ms = (unsigned)atoi(argv[1]);
	if (argc > 2)
		ready_path = argv[2];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return write(1, done, sizeof(done) - 1) == (ssize_t)(sizeof(done) - 1) ? 0 : 1;
}
