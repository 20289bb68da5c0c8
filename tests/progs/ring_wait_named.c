/*
 * ring_wait_named.c - a process whose recorder leaves a note and then waits
 * for room in a full ring.  Run as the launcher's child under `mprof run`:
 * loads LIB with dlmopen(LM_ID_NEWLM) (the recorder's note names LIB), stops
 * the launcher (SIGSTOP, until /proc shows it stopped), starts a thread that
 * lets it go on (SIGCONT) 300 ms later, and makes 200000 allocations of 64
 * bytes from churn, each freed at once: with the launcher stopped the
 * thread's ring fills and its recorder waits.  Prints "done", exits 0.
 * Facts: churn 200000 allocations, all freed; the recorder waited at least
 * once.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launcher_stop.h"

void *volatile ring_wait_sink;

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 200000; i++) {
		ring_wait_sink = malloc(64);
		free(ring_wait_sink);
	}
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc != 2)
		return 2;
	if (!dlmopen(LM_ID_NEWLM, argv[1], RTLD_NOW)) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	if (launcher_stop_300ms(&t) != 0)
		return 1;
	churn();
	pthread_join(t, NULL);
	printf("done\n");
	return 0;
}
