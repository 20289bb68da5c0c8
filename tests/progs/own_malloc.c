/*
 * own_malloc.c - a program that defines malloc and free itself (a bump
 * allocator over a static arena; free only counts), and calloc and realloc
 * too unless built with -DOWN_MALLOC_AND_FREE_ONLY.  The C library's own
 * calls (strdup, stdio's buffer) reach these definitions by plain symbol
 * lookup.  Prints how many blocks it served and freed, and exits with
 * status 3 (tests/e2e/own-malloc.sh):
 *   all four:        "served 4, freed 4 of them, 0 others\n"
 *   malloc and free: "served 2, freed 2 of them, 1 others\n" (its calloc is
 *                    the C library's, freed through this free)
 * With the argument "fork" it first forks a child that takes a block of
 * this malloc, frees it and ends with status 0 before the parent goes on.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARENA_BYTES (1 << 20)
#define HEADER_BYTES 16

static _Alignas(16) char arena[ARENA_BYTES];
static size_t arena_top;
static int served, freed_own, freed_others;

void *malloc(size_t n)
{
	size_t at = (arena_top + 15) & ~(size_t)15;

	if (n > ARENA_BYTES || at + HEADER_BYTES + n > ARENA_BYTES)
		return NULL;
	memcpy(arena + at, &n, sizeof(n));
	arena_top = at + HEADER_BYTES + n;
	served++;
	return arena + at + HEADER_BYTES;
}

void free(void *p)
{
	if (!p)
		return;
	if ((char *)p >= arena && (char *)p < arena + ARENA_BYTES)
		freed_own++;
	else
		freed_others++;
}

#ifndef OWN_MALLOC_AND_FREE_ONLY
void *calloc(size_t count, size_t size)
{
	size_t n = count * size;
	void *p;

	if (size && n / size != count)
		return NULL;
	p = malloc(n);
	if (p)
		memset(p, 0, n);
	return p;
}

void *realloc(void *p, size_t n)
{
	void *q = malloc(n);
	size_t old;

	if (q && p) {
		memcpy(&old, (char *)p - HEADER_BYTES, sizeof(old));
		memcpy(q, p, old < n ? old : n);
		free(p);
	}
	return q;
}
#endif

/* A fork child that takes and frees one block; 0 once it ended so. */
static int fork_child(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		char *volatile k = malloc(50);

		free(k);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "fork") == 0 && fork_child() != 0)
		return 1;
	/* volatile: the compiler knows these names and would drop the calls */
	char *volatile s = strdup("own");
	char *volatile m = malloc(100);
	char *volatile c = calloc(10, 10);
	int a, b, o;

#ifndef OWN_MALLOC_AND_FREE_ONLY
	m = realloc(m, 1000);
#endif
	free(s);
	free(m);
	free(c);
	a = served, b = freed_own, o = freed_others;
	printf("served %d, freed %d of them, %d others\n", a, b, o);
	return 3;
}
