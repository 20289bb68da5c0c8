/*
 * 08-early-calloc-bootstrap.c - hard case 08: an allocation storm before
 * main(), from several threads at once, mixed with dynamic-linker look-ups
 * that allocate.
 *
 * Before main() the constructor of libwarmup.so runs
 * (08-early-calloc-bootstrap-lib.c, a normal dependency of this program,
 * so its constructor may run before or while the preloaded profiler brings
 * itself up): 6 threads doing calloc/free at once, 8 zeroed tables kept,
 * 40 failing dlsym() and 10 failing dlopen() calls.  main() only prints what
 * it saw.
 *
 * Built with -DCASE08_PREINIT, the executable also calls first_callocs()
 * from its .preinit_array: the dynamic linker runs it before the
 * constructors of every shared object (libc's and the profiler's
 * included), so its calloc()s are the very first allocations of the
 * process, made while getenv() still finds nothing (environ is not set
 * yet).  mprof used to lose the whole trace there: its shim initialised in
 * that first calloc, could not read MPROF_SESSION and stayed inert; it now
 * reads /proc/self/environ then.  The test builds both variants.
 *
 * Why profilers get this wrong: a calloc wrapper that resolves the real
 * calloc with dlsym() recurses for ever when dlsym itself calls calloc
 * (retrace#111); initialisation from inside the first malloc that mallocs
 * again recurses too (bytehound#10); a constructor that allocates before the
 * real malloc was looked up crashes (libleak#25).  Blocks served by a
 * bootstrap allocator must still be zero for calloc, must be freeable, and
 * must not be reported as leaks or lost.
 *
 * Expected facts (tests/cases/08-early-calloc-bootstrap.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. no crash, no hang (10 s), exit status 0; stdout exactly
 *        "warm-up: 4208 calloc blocks checked, 0 not zeroed; failed look-ups 50/50"
 *      (with CASE08_PREINIT, preceded by "preinit: 3 blocks zeroed").
 *   2. ctor_tables    8 x calloc(512, 8), kept     8 / 32768   leak 8 / 32768
 *   3. storm_calloc   6 x 700 x calloc(1 + r % 5, 24), each freed
 *                                                4200 / 302400 leak 0 / 0
 *      no free is unmatched, nothing is reported unrecorded or lost.
 *   (CASE08_PREINIT only: first_callocs 3 x calloc(25, 8), kept
 *                                                3 / 600       leak 3 / 600)
 */
#include <stdio.h>
#include <stdlib.h>

#define FIRST_BLOCKS 3

extern int warmup_checked, warmup_dirty, warmup_failed_lookups, warmup_lookups;

#ifdef CASE08_PREINIT
static void *first_blocks[FIRST_BLOCKS];
static int first_zeroed;

__attribute__((noinline)) static void first_callocs(int argc, char **argv, char **envp)
{
	(void)argc;
	(void)argv;
	(void)envp;
	for (int k = 0; k < FIRST_BLOCKS; k++) {
		unsigned long long *p = calloc(25, sizeof(*p));
		int zero = p != NULL;

		for (int i = 0; p && i < 25; i++)
			zero &= p[i] == 0;
		first_zeroed += zero;
		first_blocks[k] = p;
	}
}

__attribute__((section(".preinit_array"), used))
static void (*const run_first)(int, char **, char **) = first_callocs;
#define PREINIT_OK (first_zeroed == FIRST_BLOCKS)
#else
#define PREINIT_OK 1
#endif

int main(void)
{
	int ok = PREINIT_OK && warmup_dirty == 0 && warmup_failed_lookups == warmup_lookups;

#ifdef CASE08_PREINIT
	printf("preinit: %d blocks zeroed\n", first_zeroed);
#endif
	printf("warm-up: %d calloc blocks checked, %d not zeroed; failed look-ups %d/%d\n",
	       warmup_checked, warmup_dirty, warmup_failed_lookups, warmup_lookups);
	return ok ? 0 : 1;
}
