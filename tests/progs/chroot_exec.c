/*
 * chroot_exec.c - a program that changes its root directory to argv[1] (a
 * root the test made, holding a copy of this program as /bin/prog with
 * its C library and loader, but not mprof's library), as chroot(1) and
 * build sandboxes do, then starts /bin/prog there four ways: posix_spawn,
 * execv in a vfork child, execv in a fork child, and an execv of its own.
 * The loader of each would print "ERROR: ld.so: object ... from
 * LD_PRELOAD cannot be preloaded" on the program's stderr if the recorder
 * left its entry in their LD_PRELOAD.
 *
 * Facts: stdout is "child ran", "spawned: status 0", "child ran", "vfork
 * child: status 0", "child ran", "fork child: status 0", "last image";
 * stderr is empty; exit status 0.  Exit 77 when chroot is refused (not
 * root).
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int wait_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	char *child_argv[] = { "/bin/prog", "child", NULL };
	char *last_argv[] = { "/bin/prog", "last", NULL };
	pid_t pid;

	if (argc == 2 && strcmp(argv[1], "child") == 0) {
		puts("child ran");
		return 0;
	}
	if (argc == 2 && strcmp(argv[1], "last") == 0) {
		puts("last image");
		return 0;
	}
	if (argc != 2 || chroot(argv[1]) != 0 || chdir("/") != 0)
		return 77;
	fflush(stdout);
	if (posix_spawn(&pid, child_argv[0], NULL, NULL, child_argv, environ) != 0)
		return 1;
	printf("spawned: status %d\n", wait_status(pid));
	fflush(stdout);
	pid = vfork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(child_argv[0], child_argv);
		_exit(127);
	}
	printf("vfork child: status %d\n", wait_status(pid));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(child_argv[0], child_argv);
		_exit(127);
	}
	printf("fork child: status %d\n", wait_status(pid));
	fflush(stdout);
	execv(last_argv[0], last_argv);
	return 1;
}
