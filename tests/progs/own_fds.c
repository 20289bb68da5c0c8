/*
 * own_fds.c - a program that owns its file descriptors: it lists those open
 * when it starts, closes every one from 3 up (as daemons and spawn helpers
 * do), opens its input and output files (which get 3 and 4), allocates from
 * a function without unwind information (so a profiler's unwinder falls
 * back to its most careful path), then reads its input and writes its
 * output.
 *
 * Usage: own_fds INPUT OUTPUT, or own_fds - (the list on stderr, and exit)
 * Expected facts (tests/e2e/transparency.sh): stdout "fds at start: " and
 * the descriptors open at start (as without a profiler: "0 1 2" when run
 * with the three standard ones), "files on 3 4", "read: " and INPUT's first
 * line; OUTPUT holds exactly "own_fds wrote this\n"; 1000 allocations of
 * 100 to 1099 bytes, all freed, from no_cfi_alloc.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "no_cfi_alloc.h"

/* The descriptors open now, but the one reading the list, into out. */
static void list_fds(char *out, size_t cap)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fds[64], n = 0;
	size_t used = 0;

	out[0] = '\0';
	if (!d)
		return;
	while ((e = readdir(d)) && n < 64)
		if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d))
			fds[n++] = atoi(e->d_name);
	closedir(d);
	for (int i = 0; i < n; i++) /* readdir's order is the kernel's: sort */
		for (int k = i + 1; k < n; k++)
			if (fds[k] < fds[i]) {
				int x = fds[i];

				fds[i] = fds[k];
				fds[k] = x;
			}
	for (int i = 0; i < n && used + 12 < cap; i++)
		used += (size_t)snprintf(out + used, cap - used, i ? " %d" : "%d", fds[i]);
}

int main(int argc, char **argv)
{
	char fds[512], line[128] = "";
	int in, out;
	ssize_t got;

	list_fds(fds, sizeof(fds));
	if (argc == 2 && strcmp(argv[1], "-") == 0) {
		fprintf(stderr, "fds at start: %s\n", fds);
		return 0;
	}
	if (argc < 3)
		return 2;
	printf("fds at start: %s\n", fds);
	fflush(stdout);
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3, ~0U, 0) != 0)
#endif
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	printf("files on %d %d\n", in, out);
	for (int i = 0; i < 1000; i++)
		free(no_cfi_alloc(100 + (size_t)i));
	got = read(in, line, sizeof(line) - 1);
	if (got > 0) {
		line[got] = '\0';
		line[strcspn(line, "\n")] = '\0';
	}
	if (write(out, "own_fds wrote this\n", 19) != 19)
		return 1;
	printf("read: %s\n", line);
	return 0;
}
