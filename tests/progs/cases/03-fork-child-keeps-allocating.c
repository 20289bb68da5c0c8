/*
 * 03-fork-child-keeps-allocating.c - hard case 03: fork() without exec().
 * The child goes on running this program image at the same time as the
 * parent, allocates a lot, keeps some blocks and leaves through exit(), so
 * every atexit hook and destructor (the profiler's too) runs in the child
 * as well as in the parent.
 *
 * Why profilers get this wrong: after fork the child holds a copy of all of
 * the profiler's state, including the open trace file.  When both processes
 * keep writing to it the file gets two headers and interleaved records, and
 * call stacks of one process show up in the other (heaptrack KDE#392085,
 * which now stops tracing forked children); the child's exit hook may also
 * finish or truncate the parent's trace.  Following the child instead needs
 * all the global state re-initialised in it (bytehound#80: no profile for a
 * fork-only child).
 *
 * Expected facts (tests/cases/03-fork-child-keeps-allocating.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. exit status 0; stdout holds the lines "child: work finished" and
 *      "parent: child exited with 0" (and nothing else).
 *   2. the parent's trace reads without errors, it records 1 fork.
 *   3. parent's report:
 *      keep_before_fork  6 x malloc(700), kept     6 / 4200     leak 6 / 4200
 *      parent_churn      6000 x calloc(1, 96), each freed
 *                                                  6000 / 576000 leak 0 / 0
 *      parent_keep       2 x malloc(555), kept     2 / 1110     leak 2 / 1110
 *   4. the parent's report has no site of child_churn or child_keep: it
 *      counts 6009 allocations in all (the 6008 above and stdout's buffer).
 *   5. the child's own trace (FILE.PID):
 *      child_churn       80000 x malloc(32 + i % 128), each freed
 *                                          80000 / 7640000      leak 0 / 0
 *      child_keep        7 x malloc(1234), kept    7 / 8638     leak 7 / 8638
 *      the 6 blocks of keep_before_fork (4200 bytes) are inherited, not
 *      allocated by the child; no site of parent_churn or parent_keep;
 *      80008 allocations in all (with the child's stdout buffer).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile kept[16];
static void *volatile last;

__attribute__((noinline)) static void keep_before_fork(void)
{
	for (int k = 0; k < 6; k++)
		kept[k] = malloc(700);
}

__attribute__((noinline)) static void child_churn(void)
{
	for (unsigned int i = 0; i < 80000; i++) {
		char *p = malloc(32 + i % 128);

		if (p)
			p[0] = (char)i;
		last = p;
		free(p);
	}
}

__attribute__((noinline)) static void child_keep(void)
{
	for (int k = 0; k < 7; k++)
		kept[6 + k] = malloc(1234);
}

__attribute__((noinline)) static void parent_churn(void)
{
	for (int i = 0; i < 6000; i++) {
		last = calloc(1, 96);
		free(last);
	}
}

__attribute__((noinline)) static void parent_keep(void)
{
	for (int k = 0; k < 2; k++)
		kept[13 + k] = malloc(555);
}

int main(void)
{
	int status = -1;
	pid_t pid;

	keep_before_fork();
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		child_churn();
		child_keep();
		printf("child: work finished\n");
		exit(0);	/* atexit hooks and destructors run here too */
	}
	parent_churn();		/* while the child runs */
	if (waitpid(pid, &status, 0) != pid)
		status = -1;
	parent_keep();
	printf("parent: child exited with %d\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
