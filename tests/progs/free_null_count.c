/*
 * tests/progs/free_null_count.c - a library preloaded into mprof itself
 * that counts the launcher's free(NULL) calls and passes every free on to
 * the C library's.  At exit, in a process named "mprof" only (the programs
 * it runs inherit the library), it writes "free_null N" to the file
 * $FREE_NULL_COUNT_FILE names.  tests/e2e/launcher-slot-state.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void __libc_free(void *p);

static unsigned long free_null;

void free(void *p)
{
	if (!p)
		free_null++;
	else
		__libc_free(p);
}

__attribute__((destructor)) static void free_null_write(void)
{
	const char *path = getenv("FREE_NULL_COUNT_FILE");
	char line[64];
	int fd, n;

	if (!path || strcmp(program_invocation_short_name, "mprof") != 0)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "free_null %lu\n", free_null);
	if (write(fd, line, (size_t)n) != n)
		n = 0;
	close(fd);
}
