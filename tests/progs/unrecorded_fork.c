/*
 * unrecorded_fork.c - a fork child whose inherited block is freed by a
 * child handler that runs before the recorder's (tests/progs/
 * unrecorded_fork_lib.c), for tests/e2e/unrecorded-fork-handler.sh.
 *
 * Expected facts: the parent makes inherited_alloc: 1 x malloc(4000),
 * never freed by the parent (leaked there, exactly).  It forks once; in
 * the child the library's handler frees that block before the child's
 * trace exists (1 unrecorded free, no allocation), then the child exits
 * with status 0 when the handler ran.  The child's trace inherits the
 * block and sees no free of it: leaked "at most" 4000 bytes in 1 block.
 * stdout: "unrecorded_fork child 0\n"
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern void *unrecorded_fork_block;

__attribute__((noinline)) static void *inherited_alloc(void)
{
	return malloc(4000);
}

int main(void)
{
	pid_t pid;
	int status;

	unrecorded_fork_block = inherited_alloc();
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(unrecorded_fork_block == NULL ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	printf("unrecorded_fork child %d\n", WEXITSTATUS(status));
	return 0;
}
