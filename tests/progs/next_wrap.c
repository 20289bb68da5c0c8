/*
 * next_wrap.c - a program whose own malloc and free (and calloc and realloc,
 * built with -DNEXT_WRAP_ALL) count their calls and forward to the next
 * definition, found with dlsym(RTLD_NEXT): the hook pattern of debug and
 * counting wrappers.  Under mprof the next one is the recorder's, which must
 * go on to the C library's (it called this free again, until the stack
 * overflowed).  The wrappers (tests/progs/next_wrap_lib.c) are compiled in,
 * or a library the program links, behind the recorder, whose next
 * definition is the C library's.  Never uses stdio: its only output is
 * one write(2); exits with status 6.
 *
 * Expected facts (tests/e2e/next-wrappers.sh; the recorded stack starts in
 * the wrapper, dropped as an allocator wrapper like strdup's):
 *   make_names    2 x strdup of "abc", 1 freed      2 / 8      leak 1 / 4
 *   wrap_malloc   3 x malloc(300) (at MALLOC_LINE), 2 freed
 *                                                   3 / 900    leak 1 / 300
 *   wrap_calloc   2 x calloc(4, 25), both freed     2 / 200    leak 0 / 0
 *   wrap_realloc  malloc(10), realloc to 1000; reallocarray(NULL, 5, 20)
 *                                                   3 / 1110   leak 2 / 1100
 *   thread_work   in a second thread: 2 x malloc(64), 1 freed
 *                                                   2 / 128    leak 1 / 64
 * Totals of these sites: 12 allocations, 2346 bytes; 5 blocks / 1468 bytes
 * live at exit.  stdout: "malloc M, calloc C, realloc R, free F\n", the
 * counts of the wrappers' calls (pthread_create's own included), the same
 * with and without mprof.  With the argument "fork", a fork child first
 * makes 2 x malloc(50) in fork_child, frees one, and writes "child: " and
 * its counts.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "next_wrap.h"

#define NOINLINE __attribute__((noinline))

static void *volatile keep[16];
static int nkeep;
static const char *volatile name = "abc"; /* volatile: no strdup folding */
static void *volatile no_block = NULL;

static void hold(void *p) { keep[nkeep++] = p; }

NOINLINE static void make_names(void)
{
	char *a = strdup(name);

	hold(strdup(name));
	free(a);
}

NOINLINE static void wrap_malloc(void)
{
	void *p[3];

	for (int i = 0; i < 3; i++)
		p[i] = keep[15] = malloc(300); /* MALLOC_LINE */
	free(p[0]);
	free(p[1]);
	hold(p[2]);
}

NOINLINE static void wrap_calloc(void)
{
	for (int i = 0; i < 2; i++) {
		void *p = calloc(4, 25);

		keep[14] = p;
		free(p);
	}
}

NOINLINE static void wrap_realloc(void)
{
	void *p = malloc(10);

	keep[13] = p;
	hold(realloc(p, 1000));
	hold(reallocarray(no_block, 5, 20));
}

NOINLINE static void *thread_work(void *arg)
{
	void *a = malloc(64);

	(void)arg;
	keep[12] = a;
	hold(malloc(64));
	free(a);
	return NULL;
}

NOINLINE static void fork_child(void)
{
	void *a = malloc(50);

	keep[11] = a;
	hold(malloc(50));
	free(a);
}

/* Appends the decimal digits of v at *at. */
static void put_number(char **at, unsigned long v)
{
	char digits[24];
	int n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	while (n > 0)
		*(*at)++ = digits[--n];
}

static void put_text(char **at, const char *s)
{
	while (*s)
		*(*at)++ = *s++;
}

/* Writes prefix and the wrappers' counts; 0, or -1 when the write fails. */
static int put_counts(const char *prefix)
{
	char line[160], *at = line;

	put_text(&at, prefix);
	put_text(&at, "malloc ");
	put_number(&at, next_wrap_count(NEXT_WRAP_MALLOC));
	put_text(&at, ", calloc ");
	put_number(&at, next_wrap_count(NEXT_WRAP_CALLOC));
	put_text(&at, ", realloc ");
	put_number(&at, next_wrap_count(NEXT_WRAP_REALLOC));
	put_text(&at, ", free ");
	put_number(&at, next_wrap_count(NEXT_WRAP_FREE));
	put_text(&at, "\n");
	return write(1, line, (size_t)(at - line)) == at - line ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t pid;
	int status;

	if (argc > 1 && strcmp(argv[1], "fork") == 0) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0) {
			fork_child();
			_exit(put_counts("child: ") ? 1 : 7);
		}
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 7)
			return 1;
	}
	make_names();
	wrap_malloc();
	wrap_calloc();
	wrap_realloc();
	if (pthread_create(&th, NULL, thread_work, NULL) || pthread_join(th, NULL))
		return 1;
	return put_counts("") ? 1 : 6;
}
