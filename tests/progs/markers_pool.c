/*
 * tests/progs/markers_pool.c - a program that uses mprof.h: markers set by
 * two threads in turn, recording stopped and started, and a pool of its own
 * inside one malloc'd arena.  Facts (tests/e2e/markers-real.sh):
 *  - markers, in this order: "begin" (main), "worker" (the thread, after
 *    its 10 blocks of 1000 B), "joined" (main), "stopped" (main, recording
 *    off), "end" (main);
 *  - between "begin" and "joined": the worker's 10 allocations of 1000 B
 *    (all leaked) and nothing of main's;
 *  - recording stopped from "stopped" for 200 ms: main's 7 blocks of 777 B
 *    allocated then are not recorded; restarted exactly after it;
 *  - after the restart: an arena of 4096 B (malloc), 3 pool blocks of 64 B
 *    in it (the first at the arena's own address), the second freed; then
 *    "end".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mprof.h"

static void *volatile keep[64];

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 10; i++)
		keep[i] = malloc(1000);
	mprof_marker("worker");
	return NULL;
}

int main(void)
{
	pthread_t t;
	struct timespec pause = {0, 200 * 1000 * 1000};
	char *arena;

	mprof_marker("begin");
	if (pthread_create(&t, NULL, worker, NULL) != 0)
		return 1;
	pthread_join(t, NULL);
	mprof_marker("joined");
	mprof_stop();
	mprof_marker("stopped");
	for (int i = 0; i < 7; i++)
		keep[20 + i] = malloc(777);
	nanosleep(&pause, NULL);
	mprof_start(MPROF_RATE_EVERY);
	arena = malloc(4096);
	keep[40] = arena;
	for (int i = 0; i < 3; i++)
		mprof_pool_alloc(arena + 64 * i, 64);
	mprof_pool_free(arena + 64);
	mprof_marker("end");
	puts(mprof_is_running() ? "running" : "not running");
	return 0;
}
