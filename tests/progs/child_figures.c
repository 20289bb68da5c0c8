/*
 * child_figures.c - a parent that touches 8 MiB and runs two children that
 * execute this program again: "five" touches 64 MiB, sleeps 300 ms and calls
 * exit(5); "quick" calls _exit(3) at once.  The parent waits for both and
 * returns 0.
 * Facts: the parent's own peak RSS is under 64 MiB (its children's are not
 * its own); "five" ends with status 5 after at least 300 ms with a peak RSS
 * of at least 64 MiB; "quick" ends without an exit note (no status).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PARENT_BYTES (8u << 20)
#define CHILD_BYTES (64u << 20)

/* Touches every page of a new block of bytes and keeps it. */
static void touch(size_t bytes)
{
	volatile char *p = malloc(bytes);

	if (!p)
		exit(1);
	for (size_t i = 0; i < bytes; i += 4096)
		p[i] = 1;
}

static pid_t start(const char *self, const char *role)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, self, role, (char *)NULL);
		_exit(1);
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct timespec nap = { 0, 300000000 };
	int a, b;
	pid_t five, quick;

	if (argc > 1 && strcmp(argv[1], "five") == 0) {
		touch(CHILD_BYTES);
		nanosleep(&nap, NULL);
		exit(5);
	}
	if (argc > 1)
		_exit(3);
	touch(PARENT_BYTES);
	five = start(argv[0], "five");
	quick = start(argv[0], "quick");
	if (waitpid(five, &a, 0) != five || waitpid(quick, &b, 0) != quick)
		return 1;
	printf("children: %d %d\n", WEXITSTATUS(a), WEXITSTATUS(b));
	return 0;
}
