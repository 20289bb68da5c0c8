/*
 * tests/progs/dladdr_count.c - a library put ahead of the recorder in
 * LD_PRELOAD that counts the dladdr and dladdr1 calls made in its process
 * about addresses in the C library (each walks the C library's whole
 * symbol table, about 10 us) and passes every call on.  At exit it writes
 * "calls_in_libc N" to the file $DLADDR_COUNT_FILE names.
 * tests/e2e/start-dladdr.sh.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int calls_in_libc;

/* Whether addr lies in the C library's mapping (no symbol table walk). */
static int in_libc(const void *addr)
{
	struct dl_find_object a, libc;

	return _dl_find_object((void *)addr, &a) == 0 &&
	       _dl_find_object((void *)gnu_get_libc_version, &libc) == 0 &&
	       a.dlfo_link_map == libc.dlfo_link_map;
}

int dladdr(const void *addr, Dl_info *info)
{
	int (*next)(const void *, Dl_info *) =
		(int (*)(const void *, Dl_info *))dlsym(RTLD_NEXT, "dladdr");

	calls_in_libc += in_libc(addr);
	return next ? next(addr, info) : 0;
}

int dladdr1(const void *addr, Dl_info *info, void **extra, int flags)
{
	int (*next)(const void *, Dl_info *, void **, int) =
		(int (*)(const void *, Dl_info *, void **, int))dlsym(RTLD_NEXT, "dladdr1");

	calls_in_libc += in_libc(addr);
	return next ? next(addr, info, extra, flags) : 0;
}

__attribute__((destructor)) static void dladdr_count_write(void)
{
	const char *path = getenv("DLADDR_COUNT_FILE");
	char line[64];
	int n, fd;

	if (!path)
		return;
	n = snprintf(line, sizeof(line), "calls_in_libc %d\n", calls_in_libc);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (write(fd, line, (size_t)n) != n)
		perror("dladdr_count: write");
	close(fd);
}
