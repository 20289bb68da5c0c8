/*
 * 01-atexit-lock-first-alloc.c - hard case 01: the first heap allocation of
 * the process is made by glibc's atexit() bookkeeping, with glibc's
 * exit-handler lock held, and later several threads register exit handlers
 * while other threads allocate and free.
 *
 * glibc keeps exit handlers in blocks of 32 slots; the first block is
 * static, every further one is a calloc(1, 1040) made inside atexit() while
 * the exit-handler lock is held.  A constructor of this program registers
 * enough handlers to need such a block before main() runs: with a C-only
 * profiler loaded, that calloc is the first allocation of the process.
 *
 * Why profilers get this wrong: an interposer that initialises lazily on its
 * first allocation and registers its own exit hook from there waits for the
 * exit-handler lock that its caller already holds (lockfree-malloc#1,
 * heaptrack KDE#395109: endless recursion); one that takes its own lock in
 * calloc while another thread holds it and wants the exit-handler lock gets
 * an AB/BA deadlock (memray#669, calloc(1040) blocked; dmtcp#936).
 *
 * Handler arithmetic: ld.so's _dl_fini plus the 1 + 44 handlers registered
 * by install_early_handlers() need one dynamic block before main(); the
 * 5 * 1600 handlers of the registrar threads fill it and need exactly 250
 * more (8000 - 19 free slots = 7981 = 249 * 32 + 13).  The count stays 250
 * as long as at most 19 handlers of someone else (libc, the profiler) are
 * registered too.  exit() frees every dynamic block once it is empty.
 *
 * Expected facts (tests/cases/01-atexit-lock-first-alloc.sh; "N / B" =
 * allocations / bytes, "leak" = blocks / bytes live at exit):
 *   1. no deadlock: finishes (within 10 s under mprof) with exit status 0.
 *   2. stdout is exactly
 *        handlers registered: 8044
 *        handlers that ran: 8044
 *   3. churn_step     3 threads x 120000 malloc(24 + i % 200), each freed
 *                                  360000 / 44460000          leak 0 / 0
 *   4. keep_three     3 x malloc(1500), kept      3 / 4500    leak 3 / 4500
 *   5. registrar_loop 250 x calloc(1, 1040) inside atexit()
 *                                  250 / 260000               leak 0 / 0
 *   6. install_early_handlers  1 x calloc(1, 1040) before main()
 *                                  1 / 1040                   leak 0 / 0
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define EARLY_COUNTERS 44	/* + the tally handler: past the 32 static slots */
#define REGISTRARS 5
#define PER_REGISTRAR 1600
#define CHURNERS 3
#define CHURN_ROUNDS 120000

static atomic_long ran;
static void *volatile hold[8];

static void bump(void)
{
	atomic_fetch_add_explicit(&ran, 1, memory_order_relaxed);
}

/* Registered before every counter, so glibc calls it after all of them. */
static void tally(void)
{
	printf("handlers that ran: %ld\n", atomic_load(&ran));
	fflush(stdout);
}

__attribute__((constructor, noinline)) static void install_early_handlers(void)
{
	atexit(tally);
	for (int k = 0; k < EARLY_COUNTERS; k++)
		atexit(bump);
}

__attribute__((noinline)) static void registrar_loop(void)
{
	for (int k = 0; k < PER_REGISTRAR; k++)
		atexit(bump);
	__asm__ volatile("" ::: "memory");
}

static void *registrar(void *unused)
{
	(void)unused;
	registrar_loop();
	return NULL;
}

__attribute__((noinline)) static void churn_step(unsigned int i)
{
	char *p = malloc(24 + i % 200);

	if (p)
		p[0] = (char)i;
	hold[i & 7] = p;
	free(p);
}

static void *churner(void *unused)
{
	(void)unused;
	for (unsigned int i = 0; i < CHURN_ROUNDS; i++)
		churn_step(i);
	return NULL;
}

__attribute__((noinline)) static void keep_three(void)
{
	for (int k = 0; k < 3; k++)
		hold[k] = malloc(1500);
}

int main(void)
{
	pthread_t tid[CHURNERS + REGISTRARS];
	int n = 0;

	/* the churners start first, so registrations overlap their work */
	for (int k = 0; k < CHURNERS; k++)
		if (pthread_create(&tid[n], NULL, churner, NULL) == 0)
			n++;
	for (int k = 0; k < REGISTRARS; k++)
		if (pthread_create(&tid[n], NULL, registrar, NULL) == 0)
			n++;
	for (int k = 0; k < n; k++)
		pthread_join(tid[k], NULL);
	if (n != CHURNERS + REGISTRARS) {
		fprintf(stderr, "only %d threads started\n", n);
		return 1;
	}
	keep_three();
	printf("handlers registered: %d\n", EARLY_COUNTERS + REGISTRARS * PER_REGISTRAR);
	return 0;
}
