/*
 * fork_exec.c - a parent, a forked child that keeps running this image, and
 * a child that execs this program again (argument "exec-child").
 *
 * Expected facts (tests/e2e/fork-exec-children.sh; "N / B" = allocations /
 * bytes, "leak" = blocks / bytes live at exit):
 *   parent:      parent_before_fork  2 x malloc(500)      2 / 1000  leak 2 / 1000
 *                parent_after_fork   6 x malloc(600), 5 freed
 *                                                         6 / 3600  leak 1 / 600
 *                no site of fork_child_work or exec_child_work.
 *   fork child:  fork_child_work     10 x malloc(123), 6 freed
 *                                                        10 / 1230  leak 4 / 492
 *                no site of exec_child_work or parent_after_fork; its trace
 *                is FILE.PID with PID its process id.
 *   exec child:  exec_child_work     8 x malloc(321), 5 freed
 *                                                         8 / 2568  leak 3 / 963
 *                no site of fork_child_work or of the parent's functions.
 * stdout (parent): "fork child PID status 0\nexec child PID status 0\n"
 * The children print nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static void *volatile keep[32];

NOINLINE static void churn(int count, size_t bytes, int kept, int base)
{
	for (int i = 0; i < count; i++) {
		void *p = malloc(bytes);
		keep[base + (i % 8)] = p;
		if (i >= kept)
			free(p);
	}
}

/* The empty asm after each call keeps the caller's frame (no tail call). */
#define CALLER(name, ...) \
	NOINLINE static void name(void) { churn(__VA_ARGS__); __asm__ volatile("" ::: "memory"); }
CALLER(parent_before_fork, 2, 500, 2, 0)
CALLER(parent_after_fork, 6, 600, 1, 8)
CALLER(fork_child_work, 10, 123, 4, 16)
CALLER(exec_child_work, 8, 321, 3, 24)

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec-child") == 0) {
		exec_child_work();
		return 0;
	}
	parent_before_fork();
	fflush(stdout);
	pid_t fork_child = fork();
	if (fork_child == 0) {
		fork_child_work();
		_exit(0);
	}
	int st_fork = -1, st_exec = -1;
	waitpid(fork_child, &st_fork, 0);
	pid_t exec_child = fork();
	if (exec_child == 0) {
		execl("/proc/self/exe", argv[0], "exec-child", (char *)NULL);
		_exit(127);
	}
	waitpid(exec_child, &st_exec, 0);
	parent_after_fork();
	printf("fork child %d status %d\n", (int)fork_child, WIFEXITED(st_fork) ? WEXITSTATUS(st_fork) : -1);
	printf("exec child %d status %d\n", (int)exec_child, WIFEXITED(st_exec) ? WEXITSTATUS(st_exec) : -1);
	return 0;
}
