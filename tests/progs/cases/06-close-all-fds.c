/*
 * 06-close-all-fds.c - hard case 06: a daemon-style program that gets rid of
 * every descriptor it inherited above stderr, then opens its own files and
 * works with them while it allocates.
 *
 * Three ways of getting rid of the descriptors, chosen by argv[1]:
 *   range  close_range(3, ~0U) (a close() loop up to RLIMIT_NOFILE where the
 *          kernel lacks close_range);
 *   scan   walk /proc/self/fd and close every entry above 2 (what systemd
 *          and many daemons do; opendir allocates while the sweep runs);
 *   null   point every descriptor 3..255 at /dev/null with dup2() and close
 *          everything from 256 up ("sanitising" rather than closing).
 * Afterwards the program opens its data file (argv[2]) and a side log
 * (argv[2] + ".side"): after range and scan they get the lowest free
 * numbers, 3 and 4, very likely the numbers a profiler's own descriptors
 * had.  It writes a pattern to both while it allocates, and at the end reads
 * both back byte by byte.
 *
 * Why profilers get this wrong: a preloaded library that keeps writing its
 * events to "its" descriptor number loses every later event once the
 * program closed it (uftrace#1883: "Bad file descriptor" on the pipe to the
 * recorder), or - worse - writes trace bytes into the program's own file
 * that now has that number, or closes it again at exit.
 *
 * Expected facts (tests/cases/06-close-all-fds.sh, for each of the three
 * modes; "N / B" = allocations / bytes, "leak" = blocks / bytes live at
 * exit):
 *   1. exit status 0, stdout exactly
 *        "files intact: data 393216 bytes on fd D, side 3072 bytes on fd S"
 *      with D and S the numbers a native run gets (3 and 4 for range and
 *      scan, 256 and 257 for null); nothing on stderr but mprof's own lines.
 *   2. after the sweep:
 *        churn_step   960 x malloc(64 + n % 240), each freed
 *                                        960 / 176160   leak 0 / 0
 *        keep_some    12 x malloc(4444), kept
 *                                        12 / 53328     leak 12 / 53328
 *   3. before the sweep:
 *        keep_early   4 x malloc(2500), kept
 *                                        4 / 10000      leak 4 / 10000
 *   4. the trace is complete (the exact counts above) and mprof does not
 *      report events lost.
 * The data file and the side log are deleted at the end.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define BLOCK_BYTES 8192
#define BLOCKS 48
#define CHURN_PER_BLOCK 20
#define KEEP_EVERY 4
#define SIDE_LINE 64
#define NULL_LIMIT 256

static void *volatile early[4];
static void *volatile kept[BLOCKS / KEEP_EVERY];
static void *volatile sink;

__attribute__((noinline)) static void keep_early(void)
{
	for (int k = 0; k < 4; k++)
		early[k] = malloc(2500);
}

__attribute__((noinline)) static void churn_step(unsigned n)
{
	size_t size = 64 + n % 240;
	char *p = malloc(size);

	if (p)
		memset(p, (int)n, size);
	sink = p;
	free(p);
}

__attribute__((noinline)) static void keep_some(int slot)
{
	kept[slot] = malloc(4444);
	__asm__ volatile("" ::: "memory");
}

static unsigned char pattern(int block, int i)
{
	return (unsigned char)(block * 13 + i * 5 + (i >> 8));
}

/* ---- the three ways of dropping inherited descriptors ------------------ */

static void drop_by_range(void)
{
	struct rlimit lim;
	long top = 4096;

	if (close_range(3, ~0U, 0) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
		top = (long)lim.rlim_cur;
	for (long fd = 3; fd < top; fd++)
		close((int)fd);
}

static void drop_by_scan(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *ent;

	if (!dir) {
		drop_by_range();
		return;
	}
	while ((ent = readdir(dir)) != NULL) {
		int fd = atoi(ent->d_name);

		if (ent->d_name[0] >= '0' && ent->d_name[0] <= '9' && fd > 2 &&
		    fd != dirfd(dir))
			close(fd);
	}
	closedir(dir);
}

static void drop_by_null(void)
{
	int null_fd = open("/dev/null", O_RDWR);

	for (int fd = 3; fd < NULL_LIMIT; fd++)
		if (fd != null_fd)
			dup2(null_fd, fd);
	if (null_fd >= NULL_LIMIT)
		close(null_fd);
	close_range(NULL_LIMIT, ~0U, 0);
}

/* ---- reading back ------------------------------------------------------ */

static long count_bad_data(int fd)
{
	unsigned char buf[BLOCK_BYTES];
	long bad = 0;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	for (int b = 0; b < BLOCKS; b++) {
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return -1;
		for (int i = 0; i < BLOCK_BYTES; i++)
			bad += buf[i] != pattern(b, i);
	}
	if (read(fd, buf, 1) != 0)	/* nothing past the end */
		return -1;
	return bad;
}

static long count_bad_side(int fd)
{
	char line[SIDE_LINE + 1], want[SIDE_LINE + 1];
	long bad = 0;

	if (lseek(fd, 0, SEEK_SET) != 0)
		return -1;
	for (int b = 0; b < BLOCKS; b++) {
		snprintf(want, sizeof(want), "%-*s\n", SIDE_LINE - 1, "block");
		want[7] = (char)('A' + b % 26);
		if (read(fd, line, SIDE_LINE) != SIDE_LINE)
			return -1;
		bad += memcmp(line, want, SIDE_LINE) != 0;
	}
	if (read(fd, line, 1) != 0)
		return -1;
	return bad;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "range";
	const char *path = argc > 2 ? argv[2] : "case06.data";
	char side_path[4096], line[SIDE_LINE + 1];
	unsigned char buf[BLOCK_BYTES];
	int data_fd, side_fd, spare[4];
	long bad_data, bad_side;
	unsigned n = 0;

	keep_early();
	if (strcmp(mode, "range") == 0)
		drop_by_range();
	else if (strcmp(mode, "scan") == 0)
		drop_by_scan();
	else if (strcmp(mode, "null") == 0)
		drop_by_null();
	else {
		fprintf(stderr, "usage: %s range|scan|null [data-file]\n", argv[0]);
		return 2;
	}

	snprintf(side_path, sizeof(side_path), "%s.side", path);
	data_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	side_fd = open(side_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (data_fd < 0 || side_fd < 0) {
		perror("open");
		return 2;
	}
	for (int k = 0; k < 4; k++)	/* take a few more of the low numbers */
		spare[k] = open("/dev/null", O_WRONLY);

	for (int b = 0; b < BLOCKS; b++) {
		for (int i = 0; i < BLOCK_BYTES; i++)
			buf[i] = pattern(b, i);
		if (write(data_fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("write data");
			return 2;
		}
		for (int c = 0; c < CHURN_PER_BLOCK; c++)
			churn_step(n++);
		if (b % KEEP_EVERY == 0)
			keep_some(b / KEEP_EVERY);
		snprintf(line, sizeof(line), "%-*s\n", SIDE_LINE - 1, "block");
		line[7] = (char)('A' + b % 26);
		if (write(side_fd, line, SIDE_LINE) != SIDE_LINE) {
			perror("write side");
			return 2;
		}
		for (int k = 0; k < 4; k++)
			if (spare[k] >= 0 && write(spare[k], buf, 32) != 32)
				fprintf(stderr, "spare descriptor %d refused a write\n", spare[k]);
	}

	bad_data = count_bad_data(data_fd);
	bad_side = count_bad_side(side_fd);
	close(data_fd);
	close(side_fd);
	unlink(path);
	unlink(side_path);
	if (bad_data != 0 || bad_side != 0) {
		printf("files DAMAGED: data %ld bad bytes, side %ld bad lines (-1: wrong size)\n",
		       bad_data, bad_side);
		return 1;
	}
	printf("files intact: data %d bytes on fd %d, side %d bytes on fd %d\n",
	       BLOCK_BYTES * BLOCKS, data_fd, SIDE_LINE * BLOCKS, side_fd);
	return 0;
}
