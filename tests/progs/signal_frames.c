/*
 * tests/progs/signal_frames.c - allocations inside signal handlers, on an
 * alternate signal stack or the thread's own, nested or not
 * (tests/e2e/signal-frames.sh).
 *
 * Usage: signal_frames BYTES single|nested
 * BYTES 0: the handlers run on the thread's own stack; else on a signal
 * stack of BYTES from malloc.  main() calls interrupted_fn() 50 times,
 * which raises SIGUSR1; on_usr1() makes one malloc(48) in usr1_leaf() that
 * stays live.  With "nested", on_usr1() then raises SIGUSR2, whose handler
 * interrupts it on the same stack and makes one malloc(80) in usr2_leaf()
 * that stays live.  Prints "usr1 50 usr2 N".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 50

static void *volatile kept1[ROUNDS], *volatile kept2[ROUNDS];
static volatile int usr1, usr2, nested;

__attribute__((noinline)) static void usr2_leaf(void)
{
	kept2[usr2] = malloc(80);
}

static void on_usr2(int sig)
{
	(void)sig;
	usr2_leaf();
	usr2++;
}

__attribute__((noinline)) static void usr1_leaf(void)
{
	kept1[usr1] = malloc(48);
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1_leaf();
	if (nested)
		raise(SIGUSR2);
	usr1++;
}

__attribute__((noinline)) static void interrupted_fn(void)
{
	raise(SIGUSR1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	size_t bytes;

	if (argc != 3)
		return 2;
	bytes = (size_t)atol(argv[1]);
	nested = strcmp(argv[2], "nested") == 0;
	memset(&sa, 0, sizeof(sa));
	if (bytes) {
		stack_t ss = { .ss_sp = malloc(bytes), .ss_size = bytes, .ss_flags = 0 };

		if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
			return 2;
		sa.sa_flags = SA_ONSTACK;
	}
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_usr2;
	sigaction(SIGUSR2, &sa, NULL);
	for (int i = 0; i < ROUNDS; i++)
		interrupted_fn();
	printf("usr1 %d usr2 %d\n", usr1, usr2);
	return 0;
}
