/*
 * tests/progs/env_drop.c - starts programs with environments that drop
 * mprof's recorder, and others that keep it (tests/e2e/env-drop.sh).
 *
 * In order, each child waited for:
 *   1. posix_spawnp("true") with the environment {PATH=/usr/bin:/bin}:
 *      dropped (LD_PRELOAD and MPROF_SESSION gone);
 *   2. posix_spawnp("true") with environ: kept (recorded);
 *   3. vfork, then execve("/bin/true") with environ less LD_PRELOAD:
 *      dropped (in this process's count: a vfork child is no process of
 *      mprof's own);
 *   4. fork; the child calls execl("/nonexistent/x") with environ (fails:
 *      nothing counted), then execle("/bin/true") with {PATH=...} (dropped,
 *      in the fork child's count);
 *   5. fork; the child calls execle("/nonexistent/y") with {PATH=...}
 *      (fails with ENOENT: taken back), then execlp("true") with environ
 *      (recorded).
 * stdout: "env_drop: execl ENOENT yes\nenv_drop: execle ENOENT yes\n" (the
 * failed calls' errno, as without mprof) then "env_drop done\n".  Exit 0.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *clean_env[] = { "PATH=/usr/bin:/bin", NULL };

static void wait_child(pid_t pid)
{
	int status;

	if (pid > 0)
		waitpid(pid, &status, 0);
}

/* environ less its LD_PRELOAD entry, in env (cap entries). */
static void env_without_preload(char **env, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; environ[i] && n + 1 < cap; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[n++] = environ[i];
	env[n] = NULL;
}

int main(void)
{
	char *argv_true[] = { "true", NULL };
	char *env[256];
	pid_t pid;

	if (posix_spawnp(&pid, "true", NULL, NULL, argv_true, clean_env) == 0)
		wait_child(pid);
	if (posix_spawnp(&pid, "true", NULL, NULL, argv_true, environ) == 0)
		wait_child(pid);
	env_without_preload(env, sizeof(env) / sizeof(env[0]));
	pid = vfork();
	if (pid == 0) {
		execve("/bin/true", argv_true, env);
		_exit(127);
	}
	wait_child(pid);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int failed = execl("/nonexistent/x", "x", (char *)NULL) < 0 && errno == ENOENT;

		printf("env_drop: execl ENOENT %s\n", failed ? "yes" : "no");
		fflush(stdout);
		execle("/bin/true", "true", (char *)NULL, clean_env);
		_exit(127);
	}
	wait_child(pid);
	pid = fork();
	if (pid == 0) {
		int failed = execle("/nonexistent/y", "y", (char *)NULL, clean_env) < 0 &&
			     errno == ENOENT;

		printf("env_drop: execle ENOENT %s\n", failed ? "yes" : "no");
		fflush(stdout);
		execlp("true", "true", (char *)NULL);
		_exit(127);
	}
	wait_child(pid);
	printf("env_drop done\n");
	return 0;
}
