/*
 * 26-unwritable-cwd.c - hard case 26: the program's working directory is a
 * place where no file can be created.  Before its first heap call the
 * program moves itself into /proc (the kernel refuses file creation there,
 * even to root), and the test also starts `mprof run` itself from /proc.
 *
 * Why profilers get this wrong: a recorder that opens its output lazily,
 * with a path relative to "the current directory", resolves it against the
 * directory the program moved to, not the one the user ran the command in;
 * and when the output cannot be created at all, tools crashed
 * (devel-statprofiler#9) or said nothing (async-profiler#309), or claimed
 * success about a file that does not exist.
 *
 * The program proves its own premise: after the move it tries to create a
 * file in its new working directory and says whether that was refused.
 *
 * Expected facts (tests/cases/26-unwritable-cwd.sh; "N / B" = allocations
 * / bytes, "leak" = blocks / bytes live at exit):
 *   1. stdout exactly "cwd=/proc create-refused=yes leaving with 5", exit
 *      status 5, whether started from a writable directory D or (unless
 *      mprof refuses before starting it) from /proc.
 *   2. Run from D: the trace is in D (default name, or `-o rel.trace`
 *      resolved against D) and mprof names it;
 *        stash_in_proc  3 x malloc(1500), kept      3 / 4500   leak 3 / 4500
 *        scratch_loop   800 x malloc(72), each freed 800 / 57600 leak 0 / 0
 *   3. Run from /proc: mprof names the place it could not write, or where
 *      it wrote instead (an existing, readable trace).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STASHED 3
#define SCRATCH_ROUNDS 800

static void *volatile stash[STASHED];
static void *volatile scratch_sink;

/* The blocks that stay live: allocated only after the move. */
__attribute__((noinline)) static void stash_in_proc(void)
{
	for (int k = 0; k < STASHED; k++)
		stash[k] = malloc(1500);
}

/* Short-lived blocks, all released again. */
__attribute__((noinline)) static void scratch_loop(void)
{
	for (int k = 0; k < SCRATCH_ROUNDS; k++) {
		char *buf = malloc(72);

		if (buf)
			buf[71] = (char)k;
		scratch_sink = buf;
		free(buf);
	}
}

/* Whether creating a file in the working directory fails (it must). */
static int create_refused(void)
{
	int fd = open("case26-probe", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return 1;
	close(fd);
	unlink("case26-probe");
	return 0;
}

int main(void)
{
	char where[PATH_MAX];

	if (chdir("/proc") != 0) {
		fprintf(stderr, "chdir /proc: %s\n", strerror(errno));
		return 2;
	}
	stash_in_proc();
	scratch_loop();
	if (!getcwd(where, sizeof(where)))
		strcpy(where, "?");
	printf("cwd=%s create-refused=%s leaving with 5\n", where,
	       create_refused() ? "yes" : "no");
	return 5;
}
