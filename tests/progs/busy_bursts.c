/*
 * busy_bursts.c - allocation in bursts with pauses between them: a fork
 * child makes one burst and exits, then two threads make 8 bursts each,
 * 20 ms apart.  The pauses leave a processor free while the program runs,
 * for the launcher's re-compression of stored chunks
 * (tests/e2e/stored-chunks.sh runs it with MPROF_TEST_STORE).
 *
 * A burst: 40000 allocations of 16 + k % 48 bytes (k = 0..39999, 1579744
 * bytes), each kept until 64 allocations later, the last 64 freed at its
 * end.
 *
 * Expected facts:
 *   burst_block: 640000 allocations, 25275904 bytes (16 bursts), 0 live at
 *   exit, in the program's trace;
 *   child_block: 40000 allocations, 1579744 bytes, 0 live at exit, in the
 *   child's trace.
 * stdout: "bursts: 16, child 0\n"
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BURSTS 8
#define PER_BURST 40000
#define KEPT 64

typedef void *(*alloc_fn)(size_t);

__attribute__((noinline)) static void *burst_block(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void *child_block(size_t n)
{
	return malloc(n);
}

static void burst(alloc_fn alloc)
{
	void *keep[KEPT] = { 0 };

	for (unsigned k = 0; k < PER_BURST; k++) {
		void *p = alloc(16 + k % 48);

		if (!p)
			exit(2);
		free(keep[k % KEPT]);
		keep[k % KEPT] = p;
	}
	for (unsigned i = 0; i < KEPT; i++)
		free(keep[i]);
}

static void *worker(void *arg)
{
	struct timespec pause = { 0, 20 * 1000000L };

	(void)arg;
	for (int b = 0; b < BURSTS; b++) {
		burst(burst_block);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[2];
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 1;
	if (pid == 0) {
		burst(child_block);
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, NULL) != 0)
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("bursts: %d, child %d\n", 2 * BURSTS, WEXITSTATUS(status));
	return 0;
}
