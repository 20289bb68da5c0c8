/*
 * 27-static-binary.c - hard case 27: a statically linked executable (built
 * with -static, and also with -static-pie, which is ET_DYN like a PIE but
 * has no program interpreter either).  No dynamic loader ever runs in it,
 * so LD_PRELOAD is never read and no allocation can be intercepted by
 * symbol interposition.
 *
 * Why profilers get this wrong: an LD_PRELOAD profiler is simply absent
 * from such a process; tools then waited for a recorder that never spoke,
 * or presented an empty profile as if the program had not allocated
 * (gperftools#961, heaptrace#13).  The program must run exactly as it does
 * alone, and mprof must say that it is static and that nothing can be
 * recorded.
 *
 * The program proves its own premise: AT_BASE in its auxiliary vector is
 * the load address of the program interpreter, 0 when there is none.
 *
 * Expected facts (tests/cases/27-static-binary.sh):
 *   1. static builds: stdout exactly "interpreter: none; kept 4 blocks",
 *      exit status 4 (or mprof refuses before running it: non-zero status,
 *      no output).
 *   2. `mprof run` returns within 10 s.
 *   3. mprof says the executable is statically linked and that no
 *      allocation can be recorded; it leaves no empty trace behind.
 *   Control, the same source linked dynamically: stdout exactly
 *   "interpreter: loaded; kept 4 blocks", exit status 4, no such message,
 *   and the trace shows
 *      keep_blocks   4 x malloc(2500), kept    4 / 10000   leak 4 / 10000
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>

#define KEPT 4

static void *volatile kept[KEPT];

__attribute__((noinline)) static void keep_blocks(void)
{
	for (int k = 0; k < KEPT; k++)
		kept[k] = malloc(2500);
}

int main(void)
{
	keep_blocks();
	printf("interpreter: %s; kept %d blocks\n", getauxval(AT_BASE) ? "loaded" : "none",
	       KEPT);
	return 4;
}
