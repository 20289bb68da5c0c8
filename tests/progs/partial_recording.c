/*
 * tests/progs/partial_recording.c - a run recorded only in part (mprof.h's
 * start and stop, `mprof run --paused`) or switched from exact to sampled
 * midway, for the reports' and exports' notes on such runs
 * (tests/e2e/estimates.sh).  Every figure below is exact: the program
 * prints nothing until recording is stopped for good.
 *
 * Usage: partial_recording MODE
 *   resume   for `mprof run --paused` (exact): 10 x malloc(100) in
 *            before_start() while paused; mprof_start(MPROF_RATE_RUN);
 *            5 x malloc(200) in kept(); malloc(300) and its free at once in
 *            temporary() (the one temporary allocation); malloc(500) in
 *            not_temporary(), then a block of before_start() freed (not
 *            recorded: a block never recorded), then the 500 bytes freed
 *            (their free is not the thread's next call, though the next one
 *            recorded); the other 9 blocks of before_start() freed (not
 *            recorded); malloc(400) in across_stop(); mprof_stop();
 *            malloc(50) and its free in while_stopped() (not recorded);
 *            across_stop's block freed (recorded: a recorded block), then
 *            kept()'s 5.  Recorded: 8 allocations of 2200 B, 8 frees,
 *            1 temporary allocation (that of temporary()), nothing leaked.
 *   sample   for an exact `mprof run` (no --paused): 20 x malloc(64) in
 *            before_switch() kept; mprof_start(4096) switches to sampling;
 *            1000 x malloc(64) and its free in churn(); the 20 blocks of
 *            before_switch() freed.  So every recorded block is freed, and
 *            churn()'s blocks that were not sampled have recorded frees
 *            (an exact run records every free) without a recorded block:
 *            1020 frees recorded, malloc records 20 + those sampled, and
 *            1000 - sampled frees of blocks never recorded.
 *   reallocs for a sampled run: 1000 x malloc(64), realloc to 4096 and
 *            free in grow(): 1000 reallocs and 1000 frees, of which the
 *            samples are a part.
 * stdout: "partial_recording MODE\n", written without an allocation
 */
#include <mprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[32];

__attribute__((noinline)) static void before_start(void)
{
	for (int i = 0; i < 10; i++)
		keep[i] = malloc(100);
}

__attribute__((noinline)) static void kept(void)
{
	for (int i = 0; i < 5; i++)
		keep[10 + i] = malloc(200);
}

__attribute__((noinline)) static void temporary(void)
{
	void *p = malloc(300);

	keep[31] = p;
	free(p);
}

__attribute__((noinline)) static void not_temporary(void)
{
	void *p = malloc(500);

	keep[31] = p;
	free(keep[0]);
	free(p);
}

__attribute__((noinline)) static void *across_stop(void)
{
	return malloc(400);
}

__attribute__((noinline)) static void while_stopped(void)
{
	void *p = malloc(50);

	keep[31] = p;
	free(p);
}

__attribute__((noinline)) static void before_switch(void)
{
	for (int i = 0; i < 20; i++)
		keep[i] = malloc(64);
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 1000; i++) {
		void *p = malloc(64);

		keep[31] = p;
		free(p);
	}
}

__attribute__((noinline)) static void grow(void)
{
	for (int i = 0; i < 1000; i++) {
		void *p = malloc(64);

		keep[31] = p;
		p = realloc(p, 4096);
		keep[31] = p;
		free(p);
	}
}

static int resume(void)
{
	void *x;

	before_start();
	if (mprof_start(MPROF_RATE_RUN) != 0)
		return 1;
	kept();
	temporary();
	not_temporary();
	for (int i = 1; i < 10; i++)
		free(keep[i]);
	x = across_stop();
	mprof_stop();
	while_stopped();
	free(x);
	for (int i = 10; i < 15; i++)
		free(keep[i]);
	return 0;
}

static int sample(void)
{
	before_switch();
	if (mprof_start(4096) != 0)
		return 1;
	churn();
	for (int i = 0; i < 20; i++)
		free(keep[i]);
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int rc;

	if (strcmp(mode, "resume") == 0)
		rc = resume();
	else if (strcmp(mode, "sample") == 0)
		rc = sample();
	else if (strcmp(mode, "reallocs") == 0)
		grow(), rc = 0;
	else
		return 2;
	if (rc)
		fprintf(stderr, "partial_recording: mprof_start failed\n");
	/* write(2), not printf: stdout's buffer would be one more allocation,
	 * sampled or not by chance in a run that ends sampling */
	{
		char line[64];
		int n = snprintf(line, sizeof(line), "partial_recording %s\n", mode);

		if (write(1, line, (size_t)n) != n)
			return 1;
	}
	return rc;
}
