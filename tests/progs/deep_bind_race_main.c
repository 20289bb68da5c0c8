/*
 * deep_bind_race_main.c - DIR N ROUNDS LIB: loads DIR/lib0.so .. lib(N-1).so
 * with RTLD_GLOBAL (LIB's lookups go through them all), then for ROUNDS
 * rounds loads LIB (tests/progs/deep_bind_race_lib.c) with
 * dlopen(RTLD_NOW | RTLD_DEEPBIND), calls its deep_bind_race_lib_run and
 * closes it, while a second thread opens and closes the program's handle
 * (from a dlclose's start until a rescan, mprof rescans the modules at
 * each recorded call) and, while that dlopen runs, two more allocate and
 * free blocks of 24 bytes (deep_bind_race_churn), so that mprof's rescans see LIB while the loader
 * relocates it (tests/e2e/deep-bind-reloc-race.sh).  Writes "done" and
 * exits with status 0; 1 when a library cannot be loaded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int deep_bind_race_done, deep_bind_race_loading;
void *volatile deep_bind_race_sink;

__attribute__((noinline)) void deep_bind_race_churn(void)
{
	void *p = malloc(24);

	deep_bind_race_sink = p;
	free(p);
}

static void *deep_bind_race_churner(void *arg)
{
	(void)arg;
	while (!deep_bind_race_done) {
		if (deep_bind_race_loading)
			deep_bind_race_churn();
		else
			sched_yield();
	}
	return NULL;
}

static void *deep_bind_race_closer(void *arg)
{
	(void)arg;
	while (!deep_bind_race_done) {
		void *h = dlopen(NULL, RTLD_NOW);

		if (h)
			dlclose(h);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[3];
	char path[4096];
	int n, rounds, failed = 0;

	if (argc != 5)
		return 2;
	n = atoi(argv[2]);
	rounds = atoi(argv[3]);
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/lib%d.so", argv[1], i);
		if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
			return 1;
	}
	pthread_create(&threads[0], NULL, deep_bind_race_closer, NULL);
	pthread_create(&threads[1], NULL, deep_bind_race_churner, NULL);
	pthread_create(&threads[2], NULL, deep_bind_race_churner, NULL);
	for (int r = 0; r < rounds && !failed; r++) {
		unsigned long (*run)(void) = NULL;
		void *h;

		deep_bind_race_loading = 1;
		h = dlopen(argv[4], RTLD_NOW | RTLD_DEEPBIND);
		deep_bind_race_loading = 0;
		if (h)
			run = (unsigned long (*)(void))dlsym(h, "deep_bind_race_lib_run");

		if (!run)
			failed = 1;
		else
			run();
		if (h)
			dlclose(h);
	}
	deep_bind_race_done = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(threads[i], NULL);
	if (failed)
		return 1;
	return write(1, "done\n", 5) == 5 ? 0 : 1;
}
