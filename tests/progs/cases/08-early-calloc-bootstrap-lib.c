/*
 * 08-early-calloc-bootstrap-lib.c - libwarmup.so, the start-up library of
 * hard case 08 (see 08-early-calloc-bootstrap.c for the facts).
 *
 * Its constructor runs while the process is still being set up, before
 * main() and possibly while (or before) the profiler brings itself up:
 *   - STORM_THREADS threads, released together by a barrier, each make
 *     STORM_ROUNDS calloc()s in storm_calloc(), check that the block is
 *     zero, dirty it and free it;
 *   - meanwhile the constructor's own thread keeps TABLES zeroed tables of
 *     512 x 8 bytes (ctor_tables) and makes failing dynamic-linker look-ups:
 *     dlsym() of a missing symbol and dlopen() of a missing library (their
 *     error strings are allocated inside libc and ld.so).
 * The results are exported for main() to print.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORM_THREADS 6
#define STORM_ROUNDS 700
#define TABLES 8
#define MISSING_SYMBOLS 40
#define MISSING_LIBRARIES 10

int warmup_checked;		/* calloc blocks checked for zero */
int warmup_dirty;		/* ... of which were not zero */
int warmup_failed_lookups;	/* look-ups that failed, as they must */
int warmup_lookups = MISSING_SYMBOLS + MISSING_LIBRARIES;
void *warmup_tables[TABLES];

static pthread_barrier_t start_line;

/* calloc(1..5, 24): returns 1 when the block was zero. */
__attribute__((noinline)) static int storm_calloc(int round)
{
	size_t count = (size_t)(round % 5) + 1;
	unsigned char *p = calloc(count, 24);
	int zero = 1;

	if (!p)
		return 0;
	for (size_t i = 0; i < count * 24; i++)
		if (p[i] != 0) {
			zero = 0;
			break;
		}
	memset(p, 0x5a, count * 24);	/* a reused block must be zeroed again */
	free(p);
	return zero;
}

static void *storm(void *unused)
{
	int zero = 0;

	(void)unused;
	pthread_barrier_wait(&start_line);
	for (int r = 0; r < STORM_ROUNDS; r++)
		zero += storm_calloc(r);
	__atomic_add_fetch(&warmup_checked, STORM_ROUNDS, __ATOMIC_RELAXED);
	__atomic_add_fetch(&warmup_dirty, STORM_ROUNDS - zero, __ATOMIC_RELAXED);
	return NULL;
}

__attribute__((noinline)) static void ctor_tables(void)
{
	for (int t = 0; t < TABLES; t++) {
		unsigned long *table = calloc(512, sizeof(*table));

		warmup_checked++;
		for (int i = 0; table && i < 512; i++)
			if (table[i]) {
				warmup_dirty++;
				break;
			}
		warmup_tables[t] = table;
	}
}

static void failing_lookups(void)
{
	char name[64];

	for (int k = 0; k < MISSING_SYMBOLS; k++) {
		snprintf(name, sizeof(name), "case08_symbol_nobody_defines_%c", 'a' + k % 26);
		if (!dlsym(RTLD_DEFAULT, name) && dlerror())
			warmup_failed_lookups++;
	}
	for (int k = 0; k < MISSING_LIBRARIES; k++)
		if (!dlopen("libcase08-not-installed.so.0", RTLD_NOW) && dlerror())
			warmup_failed_lookups++;
}

__attribute__((constructor)) static void warmup(void)
{
	pthread_t th[STORM_THREADS];
	int started = 0;

	pthread_barrier_init(&start_line, NULL, STORM_THREADS + 1);
	for (int k = 0; k < STORM_THREADS; k++)
		if (pthread_create(&th[k], NULL, storm, NULL) == 0)
			started++;
	if (started != STORM_THREADS)
		abort();	/* the barrier would never open */
	pthread_barrier_wait(&start_line);
	ctor_tables();
	failing_lookups();
	for (int k = 0; k < STORM_THREADS; k++)
		pthread_join(th[k], NULL);
	pthread_barrier_destroy(&start_line);
}
