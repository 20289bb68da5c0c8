/*
 * transparency.c - a program whose visible behaviour must be the same with
 * and without mprof: interleaved stdout / stderr lines, what it reads on
 * stdin echoed back, and how it ends.
 *
 * Usage: transparency MODE   (MODE: ok, exit3, kill, abort)
 * Expected facts (tests/e2e/transparency.sh):
 *   stdout: "out 0".."out 4" lines, then "stdin: <first stdin line>",
 *   then "mode MODE"; stderr: "err 0".."err 4" lines; each line is written
 *   with write(2), so the order is deterministic per stream.
 *   Exit: ok -> 0, exit3 -> 3, kill -> SIGKILL (shell status 137),
 *   abort -> SIGABRT (134).
 *   keep_some: 3 x malloc(2048), live at exit; churn: 100 malloc/free pairs
 *   of 64 bytes; errno_kept: 2 allocations of 32 bytes (a calloc, then a
 *   realloc of it), none live, and stdout says "errno kept: yes" (the
 *   allocator calls, recorded or not, leave errno as the program set it).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[4];

__attribute__((noinline)) static void keep_some(void)
{
	for (int i = 0; i < 3; i++)
		keep[i] = malloc(2048);
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 100; i++) {
		void *p = malloc(64);
		keep[3] = p;
		free(p);
	}
}

/* Whether successful allocator calls leave errno alone. */
__attribute__((noinline)) static int errno_kept(void)
{
	void *p;

	errno = EILSEQ;
	p = calloc(4, 8);
	p = realloc(p, 32);
	keep[3] = p;
	free(p);
	return errno == EILSEQ;
}

static void put(int fd, const char *what, int i)
{
	char line[64];
	int n = snprintf(line, sizeof line, "%s %d\n", what, i);
	(void)!write(fd, line, (size_t)n);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	char in[256] = "";
	keep_some();
	churn();
	printf("errno kept: %s\n", errno_kept() ? "yes" : "no");
	fflush(stdout);
	for (int i = 0; i < 5; i++) {
		put(1, "out", i);
		put(2, "err", i);
	}
	if (!fgets(in, sizeof in, stdin))
		strcpy(in, "(none)\n");
	printf("stdin: %s", in);
	printf("mode %s\n", mode);
	fflush(stdout);
	if (strcmp(mode, "exit3") == 0)
		exit(3);
	if (strcmp(mode, "kill") == 0)
		raise(SIGKILL);
	if (strcmp(mode, "abort") == 0)
		abort();
	return 0;
}
