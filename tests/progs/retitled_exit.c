/*
 * retitled_exit.c - forked children that give themselves a title and end
 * by _exit() or _Exit() at once, as redis's background-save child does
 * ("redis-rdb-bgsave", then _exit after a short save) and Python's
 * os._exit: no exit() handler runs, and they end long before the launcher
 * first looks at a process's command line (0.1 s after it finds it).
 *
 * Run it with one argument at least 20 bytes long (room for the titles).
 * Child 1 writes "demo: saver" over argv, leaks 2 blocks of 1000 B and
 * calls _exit(0); child 2 calls prctl(PR_SET_NAME, "demo-quick"), leaks 3
 * blocks of 1000 B and calls _Exit(3).  The master waits for each, prints
 * "children: 0 3" and returns 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define BLOCK_BYTES 1000

static void leak(int blocks)
{
	for (int i = 0; i < blocks; i++) {
		volatile char *p = malloc(BLOCK_BYTES);

		if (!p)
			_exit(1);
		p[0] = 1;
	}
}

/* Writes title over the argument area (argv's strings lie one after the
 * other), cut to fit, the rest zeroed. */
static void title_set(int argc, char **argv, const char *title)
{
	size_t bytes = (size_t)(argv[argc - 1] + strlen(argv[argc - 1]) - argv[0]);
	size_t n = strlen(title);

	if (n > bytes)
		n = bytes;
	memset(argv[0], 0, bytes);
	memcpy(argv[0], title, n);
}

static int child_status(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	pid_t first, second;
	int s1, s2;

	if (argc < 2 || strlen(argv[1]) < 20)
		return 2;
	first = fork();
	if (first == 0) {
		title_set(argc, argv, "demo: saver");
		leak(2);
		_exit(0);
	}
	s1 = child_status(first);
	second = fork();
	if (second == 0) {
		prctl(PR_SET_NAME, "demo-quick", 0, 0, 0);
		leak(3);
		_Exit(3);
	}
	s2 = child_status(second);
	printf("children: %d %d\n", s1, s2);
	return 0;
}
