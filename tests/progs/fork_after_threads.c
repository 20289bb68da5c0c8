/*
 * fork_after_threads.c - forks after threads that allocated have ended.
 *
 * Four threads run one after another (each joined before the next starts,
 * so the recorder recycles one thread state); each keeps 100 blocks of 100
 * bytes live from thread_keep.  Then main forks: the child allocates one
 * block of 777 bytes in child_alloc and ends by _exit(0).  Neither main
 * before the fork (after the threads) nor the parent after it calls the
 * allocator.  Facts: the child forked at the parent's last event and
 * inherits every block live in the parent at its end, thread_keep's 400
 * among them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define THREADS 4
#define BLOCKS 100

static void *kept[THREADS][BLOCKS];

__attribute__((noinline)) static void *thread_keep(size_t size_bytes)
{
	return malloc(size_bytes);
}

__attribute__((noinline)) static void *child_alloc(size_t size_bytes)
{
	return malloc(size_bytes);
}

static void *worker(void *arg)
{
	void **slots = arg;

	for (int i = 0; i < BLOCKS; i++)
		slots[i] = thread_keep(100);
	return NULL;
}

int main(void)
{
	pid_t pid;
	int status;

	/* stdout's buffer first: main's last allocator call is then
	 * pthread_create's, before the threads' 400 */
	puts("fork_after_threads forking");
	fflush(stdout);
	for (int i = 0; i < THREADS; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, kept[i]) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		volatile void *p = child_alloc(777);

		_exit(p ? 0 : 1);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	return 0;
}
