/*
 * valgrind_leaks.c - a program with known leaks, for a leak checker run
 * under mprof (tests/e2e/under-valgrind.sh), that also tells how big the
 * mappings of mprof's session directory (the recorder's process file and
 * the launcher's file) are in its address space.
 *
 * Usage: valgrind_leaks MAPS_FILE  (writes "largest session mapping: N KiB"
 * and "session mappings: M" into MAPS_FILE, from /proc/self/maps: the
 * mappings whose path starts with $MPROF_SESSION/; N and M are 0 without
 * MPROF_SESSION)
 * Expected facts: lose_blocks: 5 x malloc(100 + i), lost at exit (5 / 510);
 * keep: 1 x malloc(64), reachable from a global at exit; the FILEs of
 * MAPS_FILE and /proc/self/maps and their buffers, freed (with or without
 * MPROF_SESSION).
 * stdout: "valgrind_leaks done\n"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile reachable;

__attribute__((noinline)) static void lose_blocks(void)
{
	for (int i = 0; i < 5; i++) {
		char *volatile p = malloc(100 + i);

		memset(p, i, 100 + i);
	}
}

/* Writes the size of the largest mapping under the session directory, and
 * their number, into out. */
static void session_maps(FILE *out)
{
	const char *dir = getenv("MPROF_SESSION");
	unsigned long largest_kib = 0, count = 0;
	char line[4096];
	FILE *maps;

	/* read without MPROF_SESSION too: its blocks are the same then */
	maps = fopen("/proc/self/maps", "r");
	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long lo, hi;
		char *path = strchr(line, '/');
		size_t n = dir ? strlen(dir) : 0;

		if (!dir || sscanf(line, "%lx-%lx", &lo, &hi) != 2 || !path ||
		    strncmp(path, dir, n) != 0 || path[n] != '/')
			continue;
		count++;
		if ((hi - lo) >> 10 > largest_kib)
			largest_kib = (hi - lo) >> 10;
	}
	if (maps)
		fclose(maps);
	fprintf(out, "largest session mapping: %lu KiB\nsession mappings: %lu\n", largest_kib,
		count);
}

int main(int argc, char **argv)
{
	FILE *out;

	if (argc != 2 || !(out = fopen(argv[1], "w"))) {
		fprintf(stderr, "usage: valgrind_leaks MAPS_FILE\n");
		return 2;
	}
	lose_blocks();
	reachable = malloc(64);
	session_maps(out);
	fclose(out);
	printf("valgrind_leaks done\n");
	return 0;
}
