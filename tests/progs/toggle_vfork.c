/*
 * toggle_vfork.c - run with `mprof run --paused` (SIGUSR2 toggles) and an
 * argument FILE: a vfork child sets SIGUSR2 to be ignored and execs
 * /bin/true, as a launcher of helpers may; the child shares the parent's
 * memory but not its dispositions, so the parent's SIGUSR2 is still
 * mprof's handler.  The parent then creates FILE, and once the test has
 * sent SIGUSR2 to mprof (FILE.sent exists) allocates 16 bytes every 10 ms
 * until recording runs (up to 30 s), then 64 bytes in after_toggle.
 *
 * Facts (tests/e2e/toggle-vfork.sh): stdout "parent's SIGUSR2: default,
 * child 0, recording on: yes"; exit status 0; after_toggle's 64 bytes are
 * recorded; mprof says nothing of the program taking the toggle signal.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mprof.h"

/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile block;

__attribute__((noinline)) static void after_toggle(void)
{
	block = malloc(64);
	free(block);
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 10000000 };
	struct sigaction now;
	char sent[4096];
	int status, fd, i;
	pid_t pid;

	if (argc < 2 || snprintf(sent, sizeof(sent), "%s.sent", argv[1]) >= (int)sizeof(sent))
		return 2;
	pid = vfork();
	if (pid == 0) {
		signal(SIGUSR2, SIG_IGN);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || sigaction(SIGUSR2, NULL, &now) != 0)
		return 1;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return 1;
	close(fd);
	for (i = 0; i < 6000 && access(sent, F_OK) != 0; i++)
		nanosleep(&pause, NULL);
	for (i = 0; i < 3000 && !mprof_is_running(); i++) {
		block = malloc(16);
		free(block);
		nanosleep(&pause, NULL);
	}
	after_toggle();
	printf("parent's SIGUSR2: %s, child %d, recording on: %s\n",
	       now.sa_handler == SIG_DFL ? "default" : "changed",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1, mprof_is_running() ? "yes" : "no");
	return 0;
}
