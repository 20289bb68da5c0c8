/*
 * leader_exit.c - a fork child whose main thread leaves by pthread_exit()
 * while its other thread goes on (tests/e2e/leader-exit.sh).
 *
 * The child starts a worker and ends its main thread; the worker waits (up
 * to 30 s) until /proc shows that main thread a zombie, then makes 20
 * rounds 100 ms apart of 50 blocks of 500 bytes from leader_exit_alloc
 * (1000 blocks, 500000 bytes, never freed) and ends the process by
 * exit(5).  The parent waits for it and prints "child exited 5".
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void *volatile leader_exit_sink;

__attribute__((noinline)) void leader_exit_alloc(void)
{
	for (int i = 0; i < 50; i++)
		leader_exit_sink = malloc(500);
}

/* The state letter of the process's main thread in /proc/self/stat. */
static char leader_state(void)
{
	char buf[512], *rparen;
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	rparen = strrchr(buf, ')');
	return rparen && rparen[1] == ' ' ? rparen[2] : 0;
}

static void *worker(void *arg)
{
	struct timespec step = { 0, 10 * 1000 * 1000 }, round = { 0, 100 * 1000 * 1000 };

	(void)arg;
	for (int i = 0; i < 3000 && leader_state() != 'Z'; i++)
		nanosleep(&step, NULL);
	for (int r = 0; r < 20; r++) {
		nanosleep(&round, NULL);
		leader_exit_alloc();
	}
	exit(5);
}

int main(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		pthread_t t;

		if (pthread_create(&t, NULL, worker, NULL) != 0)
			_exit(3);
		pthread_exit(NULL);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	printf("child exited %d\n", WEXITSTATUS(status));
	return 0;
}
