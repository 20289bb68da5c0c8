/*
 * tests/progs/system_children.c - children of system() and popen(), which
 * the C library reaps itself, for what their traces say of how they ended
 * (tests/e2e/system-children.sh).
 *
 * Usage: system_children PROG [PPROG]
 *   PROG: tests/progs/reaped_children.c, whose "PROG end WAY" ends by WAY;
 *   PPROG: the same for the popen() calls (a link of another name, so that
 *   their traces differ), PROG by default.
 * Runs, one after the other, and prints what each call returned, as
 * "WHAT: exit S" or "WHAT: signal N" (or "WHAT: failed"):
 *   system exec segv   system("exec PROG end segv"): the shell executes
 *                      PROG, which is killed by SIGSEGV;
 *   system exec quick  system("exec PROG end quick"): PROG calls _exit(4);
 *   system sh kill     system("PROG end kill"): the shell forks PROG, which
 *                      is killed by SIGKILL, reaps it and ends by _exit(137)
 *                      (dash; bash may execute PROG itself);
 *   popen exec kill    popen("exec PPROG end kill", "r"), pclose();
 *   popen exec quick   popen("exec PPROG end quick", "w"), pclose();
 *   system NULL        system(NULL): "shell" when it says there is one (the
 *                      C library's asks a shell to "exit 0");
 *   two children       popen("exec PPROG end exit", "r"), then fork() a
 *                      child that waits on a pipe, then pclose(); then the
 *                      child is let go, calls exit(9) and is reaped by a
 *                      raw wait4 system call (no recorded reap): pclose()'s
 *                      status must not become the fork child's, started
 *                      within the same popen()..pclose() window.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void status_print(const char *what, int st)
{
	if (st == -1)
		printf("%s: failed\n", what);
	else if (WIFEXITED(st))
		printf("%s: exit %d\n", what, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: signal %d\n", what, WTERMSIG(st));
	else
		printf("%s: status %d\n", what, st);
}

static void run_system(const char *what, const char *fmt, const char *prog)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), fmt, prog);
	status_print(what, system(cmd));
}

static void run_popen(const char *what, const char *fmt, const char *prog, const char *type)
{
	char cmd[4096];
	FILE *f;

	snprintf(cmd, sizeof(cmd), fmt, prog);
	f = popen(cmd, type);
	if (!f) {
		printf("%s: failed\n", what);
		return;
	}
	status_print(what, pclose(f));
}

/* A popen() child and a fork child in one popen()..pclose() window. */
static void run_two(const char *pprog)
{
	char cmd[4096];
	int hold[2], st = 0;
	pid_t pid;
	FILE *f;
	char c;

	snprintf(cmd, sizeof(cmd), "exec '%s' end exit", pprog);
	if (pipe(hold) != 0 || !(f = popen(cmd, "r"))) {
		printf("two children: failed\n");
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(hold[1]);
		exit(read(hold[0], &c, 1) == 0 ? 9 : 8);
	}
	status_print("two children: pclose", pclose(f));
	close(hold[0]);
	close(hold[1]);
	if (pid < 0 || syscall(SYS_wait4, pid, &st, 0, NULL) != pid)
		printf("two children: fork child: failed\n");
	else
		status_print("two children: fork child", st);
}

int main(int argc, char **argv)
{
	const char *pprog = argc > 2 ? argv[2] : argv[1];

	if (argc < 2)
		return 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	run_system("system exec segv", "exec '%s' end segv", argv[1]);
	run_system("system exec quick", "exec '%s' end quick", argv[1]);
	run_system("system sh kill", "'%s' end kill", argv[1]);
	run_popen("popen exec kill", "exec '%s' end kill", pprog, "r");
	run_popen("popen exec quick", "exec '%s' end quick", pprog, "w");
	printf("system NULL: %s\n", system(NULL) ? "shell" : "none");
	run_two(pprog);
	return 0;
}
