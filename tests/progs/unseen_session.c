/*
 * unseen_session.c - a program that hides mprof's session directory from
 * itself, as a sandbox does (a mount namespace of its own, an empty tmpfs
 * mounted over the directory's parent: the parent of $MPROF_SESSION, or
 * /dev/shm without mprof), then starts itself again three ways: by
 * posix_spawn, by execv in a vfork child, and by execv of its own.  The
 * recorder of none of them can create a process file, and mprof names
 * each, with the reason.
 *
 * Facts: stdout is "child ran", "spawned: status 0", "child ran",
 * "vfork child: status 0", "last image"; exit status 0.  Exit 77 when the
 * mount namespace or the mount is refused (not root, no CAP_SYS_ADMIN).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Mounts an empty tmpfs over the parent of mprof's session directory, in
 * a mount namespace of this process's own; 0 or -1. */
static int hide_session_dir(void)
{
	const char *session = getenv("MPROF_SESSION");
	char dir[4096] = "/dev/shm";
	char *slash;

	if (session && strlen(session) < sizeof(dir)) {
		strcpy(dir, session);
		slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return -1;
		*slash = '\0';
	}
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		return -1;
	return mount("tmpfs", dir, "tmpfs", 0, "size=1m");
}

static int wait_status(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	char *child_argv[] = { argv[0], "child", NULL };
	char *last_argv[] = { argv[0], "last", NULL };
	pid_t pid;

	if (argc == 2) {
		puts(strcmp(argv[1], "child") == 0 ? "child ran" : "last image");
		return 0;
	}
	if (hide_session_dir() != 0)
		return 77;
	fflush(stdout);
	if (posix_spawn(&pid, argv[0], NULL, NULL, child_argv, environ) != 0)
		return 1;
	printf("spawned: status %d\n", wait_status(pid));
	fflush(stdout);
	pid = vfork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execv(argv[0], child_argv);
		_exit(127);
	}
	printf("vfork child: status %d\n", wait_status(pid));
	fflush(stdout);
	execv(argv[0], last_argv);
	return 1;
}
