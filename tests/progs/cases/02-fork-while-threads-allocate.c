/*
 * 02-fork-while-threads-allocate.c - hard case 02: a multithreaded process
 * forks again and again while its other threads are busy in malloc() and
 * free().  Every child allocates and frees a little, then leaves with
 * _exit(0).
 *
 * Why profilers get this wrong: fork() copies only the calling thread.  A
 * lock of the profiler (or of its stack unwinder) that another thread held
 * at the moment of fork stays locked for ever in the child, unless the
 * profiler takes its locks around fork (pthread_atfork) or resets them in
 * the child: the child then hangs in its first allocation (gperftools#1425,
 * gperftools#499).  A profiler that keeps writing into the parent's trace
 * from the child mixes the children's work into the parent's profile.
 *
 * A child that hangs is killed by alarm(5), so the parent always ends and
 * names it on stderr ("child K ended badly: wait status 0x...").
 *
 * Expected facts (tests/cases/02-fork-while-threads-allocate.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. no hang: finishes (within 15 s under mprof) with exit status 0.
 *   2. stdout line 1 is exactly "children that exited cleanly: 50 of 50";
 *      nothing on stderr names a child.
 *   3. stdout line 2 is "worker allocations: N, bytes: B" and the parent's
 *      report has, for worker_step, exactly N / B, leak 0 / 0 (N and B are
 *      counted by the workers themselves; they vary from run to run).
 *   4. parent_keep    5 x malloc(3030), kept   5 / 15150  leak 5 / 15150
 *   5. the parent's report has no site of child_work; every child has its
 *      own trace (FILE.PID, 50 of them), each with
 *      child_work     90 x malloc(64 + 8 * i), each freed
 *                                              90 / 37800  leak 0 / 0
 *      and no site of worker_step or parent_keep.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WORKERS 5
#define CHILDREN 50
#define CHILD_BLOCKS 90

static atomic_bool quit;
static atomic_long total_allocs;
static atomic_long total_bytes;
static void *volatile scratch[32];

/* Returns the size it allocated. */
__attribute__((noinline)) static size_t worker_step(unsigned long n)
{
	size_t size = 40 + n % 300;
	char *p = malloc(size);

	if (p)
		p[size - 1] = (char)n;
	scratch[n & 15] = p;
	free(p);
	return size;
}

static void *worker(void *unused)
{
	unsigned long n = 0;
	long bytes = 0;

	(void)unused;
	while (!atomic_load(&quit)) {
		bytes += (long)worker_step(n);
		n++;
		if (n % 200 == 0)
			usleep(40);	/* bounds the trace size, keeps forks overlapping */
	}
	atomic_fetch_add(&total_allocs, (long)n);
	atomic_fetch_add(&total_bytes, bytes);
	return NULL;
}

/* The stores through scratch[] keep the compiler from dropping the calls. */
__attribute__((noinline)) static void child_work(void)
{
	for (int i = 0; i < CHILD_BLOCKS; i++) {
		char *p = malloc(64 + 8 * (size_t)i);

		if (p)
			memset(p, 0x5a, 64 + 8 * (size_t)i);
		scratch[16 + (i & 15)] = p;
		free(p);
	}
}

__attribute__((noinline)) static void parent_keep(void)
{
	for (int k = 0; k < 5; k++)
		scratch[k] = malloc(3030);
}

int main(void)
{
	pthread_t tid[WORKERS];
	int clean = 0;

	for (int k = 0; k < WORKERS; k++)
		if (pthread_create(&tid[k], NULL, worker, NULL) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	for (int c = 0; c < CHILDREN; c++) {
		int status = 0;
		pid_t pid = fork();

		if (pid == 0) {
			alarm(5);	/* a hung child dies of SIGALRM */
			child_work();
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			status = -1;
		if (status == 0)
			clean++;
		else
			fprintf(stderr, "child %d ended badly: wait status 0x%x\n", c, status);
		usleep(1500);
	}
	atomic_store(&quit, 1);
	for (int k = 0; k < WORKERS; k++)
		pthread_join(tid[k], NULL);
	parent_keep();
	printf("children that exited cleanly: %d of %d\n", clean, CHILDREN);
	printf("worker allocations: %ld, bytes: %ld\n",
	       atomic_load(&total_allocs), atomic_load(&total_bytes));
	return clean == CHILDREN ? 0 : 1;
}
