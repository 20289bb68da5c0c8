/*
 * tests/progs/foreign_child.c - a 64-bit program that starts a program
 * whose loader cannot load mprof's 64-bit recorder (a 32-bit one), for
 * tests/e2e/foreign-child.sh, or one that must not have it (built with a
 * sanitizer), for tests/e2e/sanitizer-children.sh.
 *
 * Usage: foreign_child HOW CHILD.  HOW is "spawn" (posix_spawn), "fork"
 * (fork, then execv in the child), "vfork" (vfork, then execv), "system"
 * (system(3), through /bin/sh), "popen" (popen(3), its output copied to
 * stdout), "spawn-twice" (posix_spawn with environ and its LD_PRELOAD
 * entry once more after it: two entries, the loader reads the last), or
 * "exec" (this process executes CHILD itself).  Allocates
 * one block first; for the first five waits for the child and prints
 * "foreign_child: HOW: status N" with its exit status, then exits 0.
 * Exits 2 when the child cannot be started.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int main(int argc, char **argv)
{
	const char *how = argc > 2 ? argv[1] : "";
	char *child_argv[] = { argc > 2 ? argv[2] : NULL, NULL };
	char *volatile block = malloc(64); /* volatile: kept by the compiler */
	int status = -1;
	pid_t pid = -1;

	if (argc != 3)
		return 2;
	free(block);
	fflush(stdout);
	if (strcmp(how, "spawn") == 0) {
		if (posix_spawn(&pid, argv[2], NULL, NULL, child_argv, environ) != 0)
			return 2;
	} else if (strcmp(how, "spawn-twice") == 0) {
		size_t n = 0;
		const char *preload = getenv("LD_PRELOAD");

		while (environ[n])
			n++;
		char *env[n + 2];

		memcpy(env, environ, n * sizeof(env[0]));
		env[n] = preload ? (char *)preload - strlen("LD_PRELOAD=") : NULL;
		env[n + 1] = NULL;
		if (posix_spawn(&pid, argv[2], NULL, NULL, child_argv, env) != 0)
			return 2;
	} else if (strcmp(how, "fork") == 0 || strcmp(how, "vfork") == 0) {
		pid = how[0] == 'v' ? vfork() : fork();
		if (pid == 0) {
			execv(argv[2], child_argv);
			_exit(2);
		}
	} else if (strcmp(how, "system") == 0) {
		status = system(argv[2]);
	} else if (strcmp(how, "popen") == 0) {
		FILE *f = popen(argv[2], "r");
		int c;

		if (!f)
			return 2;
		while ((c = getc(f)) != EOF)
			putchar(c);
		status = pclose(f);
	} else if (strcmp(how, "exec") == 0) {
		execv(argv[2], child_argv);
		return 2;
	} else {
		return 2;
	}
	if (pid > 0 && waitpid(pid, &status, 0) != pid)
		return 2;
	if (pid < 0 && status == -1)
		return 2;
	printf("foreign_child: %s: status %d\n", how, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
