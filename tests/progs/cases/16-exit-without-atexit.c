/*
 * 16-exit-without-atexit.c - hard case 16: the process leaves without
 * running atexit handlers or library destructors, either through _exit()
 * (as sanitizers, supervisors and forked children do) or through abort().
 * Its very last heap calls come just before it leaves.
 *
 * Why profilers get this wrong: a recorder that flushes the events it has
 * buffered only from an atexit hook or a destructor loses the tail of the
 * run: lost frees turn into false leaks and lost allocations go missing
 * (curl#6620: the malloc-debug log lost its end under _exit(), and the
 * analysis reported leaks that were not there).
 *
 * Usage: prog [_exit|abort]   (without an argument: _exit)
 *
 * Expected facts, for both ways out (tests/cases/16-exit-without-atexit.sh;
 * "N / B" = allocations / bytes, "leak" = blocks / bytes live at the end):
 *   1. _exit: exit status 3, stdout exactly "last heap call done, _exit(3)";
 *      abort: killed by SIGABRT (`mprof run` exits with 134 and says
 *      "killed by signal 6"), stdout exactly "last heap call done, abort()".
 *   2. warm_up       10000 x malloc(40 + i % 100), each freed at once
 *                                           10000 / 895000  leak 0 / 0
 *      final_burst   100 x malloc(777) and free, the last heap calls
 *                                           100 / 77700     leak 0 / 0
 *      no free unmatched, no event missing.
 *   3. keep_four     4 x malloc(4000), kept    4 / 16000    leak 4 / 16000
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WARM_UP_ROUNDS 10000
#define BURST 100

static void *volatile slot[4];
static void *volatile sink;

__attribute__((noinline)) static void warm_up(int i)
{
	char *p = malloc(40 + (size_t)(i % 100));

	if (p)
		p[0] = (char)i;
	sink = p;
	free(p);
}

__attribute__((noinline)) static void keep_four(void)
{
	for (int k = 0; k < 4; k++)
		slot[k] = malloc(4000);
}

/* Ends with a free: the very last event of the process. */
__attribute__((noinline)) static void final_burst(void)
{
	for (int k = 0; k < BURST; k++) {
		char *p = malloc(777);

		if (p)
			p[776] = (char)k;
		sink = p;
		free(p);
	}
}

int main(int argc, char **argv)
{
	int by_abort = argc > 1 && strcmp(argv[1], "abort") == 0;

	/* stdout's buffer is allocated before the last heap calls */
	setvbuf(stdout, NULL, _IOFBF, BUFSIZ);
	for (int i = 0; i < WARM_UP_ROUNDS; i++)
		warm_up(i);
	keep_four();
	final_burst();
	printf("last heap call done, %s\n", by_abort ? "abort()" : "_exit(3)");
	fflush(stdout);
	if (by_abort)
		abort();
	_exit(3);
}
