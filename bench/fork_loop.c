/*
 * bench/fork_loop.c - forks N children one after another, each of which
 * allocates one block and exits, and prints the parent's mean time in
 * fork() and in waitpid() per child, in microseconds (bench.py --processes):
 * what a recorded fork child costs the program that forks it.
 *
 * usage: fork_loop N
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	double in_fork = 0, in_wait = 0;

	if (n <= 0) {
		fprintf(stderr, "usage: fork_loop N\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		double a = now_us(), b;
		pid_t pid = fork();

		if (pid == 0) {
			free(malloc(100));
			_exit(0);
		}
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		b = now_us();
		waitpid(pid, NULL, 0);
		in_fork += b - a;
		in_wait += now_us() - b;
	}
	printf("%.1f %.1f\n", in_fork / n, in_wait / n);
	return 0;
}
