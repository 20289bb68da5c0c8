/*
 * 15-sigkill-midrun.c - hard case 15: the program is killed by SIGKILL in
 * the middle of its work, the way the OOM killer or a container runtime
 * ends a process.  Nothing of the process runs after the signal: no
 * handler, no atexit hook, no library destructor, no flush of anything
 * still sitting in a buffer of the process.
 *
 * Why profilers get this wrong: a recorder that keeps events in a buffer of
 * the profiled process and writes them out at exit, or a trace format that
 * only becomes readable once a final index or footer is written, leaves
 * nothing usable behind a killed process (memray#708, memray#598); one that
 * is cut in the middle of a record may read the torn tail as an event with
 * a garbage size or call stack.
 *
 * The kill comes right after the last allocation, with no pause that
 * would let a time-based flush catch up: every event the process made
 * before raise(SIGKILL) must be in the trace.
 *
 * Expected facts (tests/cases/15-sigkill-midrun.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at the end):
 *   1. `mprof run` exits with 137 (128 + SIGKILL) and says the program was
 *      killed by signal 9; stdout is exactly
 *      "holding 20000 blocks of 100 bytes, raising SIGKILL".
 *   2. the trace exists and `mprof report` reads it; its summary names
 *      signal 9 as the way the program ended.
 *   3. hold_record     20000 x malloc(100), all kept
 *                                          20000 / 2000000  leak 20000 / 2000000
 *      (every block 100 bytes, none freed).
 *   4. scratch_churn   50000 x malloc(16 + i % 50), each freed at once
 *                                          50000 / 2025000  leak 0 / 0
 *      never_reached   the malloc(123457) after raise(): no site at all;
 *      no site is larger than the largest real one (2025000 bytes), and no
 *      free is unmatched.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RECORDS 20000
#define RECORD_BYTES 100
#define CHURN_ROUNDS 50000

/* volatile: records nobody reads must still be allocated (gcc drops them) */
static char *volatile records[RECORDS];
static void *volatile sink;

__attribute__((noinline)) static void hold_record(int i)
{
	char *p = malloc(RECORD_BYTES);

	if (p)
		memset(p, 'a' + i % 26, RECORD_BYTES);
	records[i] = p;
}

__attribute__((noinline)) static void scratch_churn(int i)
{
	size_t bytes = 16 + (size_t)(i % 50);
	char *p = malloc(bytes);

	if (p)
		p[bytes - 1] = (char)i;
	sink = p;
	free(p);
}

__attribute__((noinline)) static void never_reached(void)
{
	sink = malloc(123457);
}

int main(void)
{
	int i;

	for (i = 0; i < RECORDS; i++)
		hold_record(i);
	for (i = 0; i < CHURN_ROUNDS; i++)
		scratch_churn(i);
	printf("holding %d blocks of %d bytes, raising SIGKILL\n", RECORDS, RECORD_BYTES);
	fflush(stdout);
	raise(SIGKILL);
	never_reached();
	return 0;
}
