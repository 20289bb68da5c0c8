/*
 * thread_churn.c - threads that end faster than the launcher frees their
 * slots.  640 threads, started 8 at a time and joined before the next 8
 * start (so at most 10 threads are alive at once), each making one malloc
 * of 40 bytes and freeing it.  Under mprof (MPROF_LAUNCHER_PID set), after
 * the first 320 it stops the launcher for 500 ms (SIGSTOP, and a thread that
 * allocates nothing sends SIGCONT), so the slots of the threads that end
 * meanwhile stay retired: run with 64 slots (an RLIMIT_AS of 700 MB), the
 * next threads find none free and must wait for the launcher, not go
 * unrecorded (they did, and mprof said that more threads were alive at
 * once than it has slots).
 *
 * Facts (tests/e2e/thread-churn.sh): thread_alloc 640 allocations of
 * 40 bytes, none live at exit; stdout "threads 640"; exit status 0.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 640
#define BATCH 8
#define STOP_MS 500

static pid_t launcher_pid;

__attribute__((noinline)) static void thread_alloc(void)
{
	/* volatile, so that the compiler keeps the malloc and free; the
	 * thread's own, as a global shared by 8 threads at once let one free
	 * another's block twice (glibc's "double free", 1 run in ~100) */
	void *volatile block = malloc(40);

	free(block);
}

static void *thread_main(void *arg)
{
	thread_alloc();
	return arg;
}

/* Lets the launcher go on after STOP_MS; allocates nothing. */
static void *resumer_main(void *arg)
{
	struct timespec pause = { 0, STOP_MS * 1000000L };

	nanosleep(&pause, NULL);
	kill(launcher_pid, SIGCONT);
	return arg;
}

int main(void)
{
	const char *pid_text = getenv("MPROF_LAUNCHER_PID");
	pthread_t resumer;
	int joined = 0, resuming = 0;

	launcher_pid = pid_text ? (pid_t)atol(pid_text) : 0;
	for (int i = 0; i < THREADS; i += BATCH) {
		pthread_t t[BATCH];

		if (i == THREADS / 2 && launcher_pid > 0 && kill(launcher_pid, SIGSTOP) == 0)
			resuming = pthread_create(&resumer, NULL, resumer_main, NULL) == 0;
		for (int k = 0; k < BATCH; k++) {
			if (pthread_create(&t[k], NULL, thread_main, NULL) != 0) {
				perror("pthread_create");
				return 1;
			}
		}
		for (int k = 0; k < BATCH; k++)
			joined += pthread_join(t[k], NULL) == 0;
	}
	if (resuming)
		pthread_join(resumer, NULL);
	printf("threads %d\n", joined);
	return 0;
}
