/*
 * tests/progs/signal_stack.c - a signal handler that allocates while it
 * runs on a small alternate signal stack (tests/e2e/signal-stack.sh).
 *
 * Usage: signal_stack BYTES
 * Installs a SIGUSR1 handler on a signal stack of BYTES (8192 is glibc's
 * SIGSTKSZ), raises SIGUSR1 100 times; each time the handler makes one
 * malloc(100) in deep_alloc() 20 frames down and frees it, then one
 * malloc(5000) in handler_keep() that stays live.  Prints "handled 100".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile keep, *volatile kept[100];
static volatile int handled;

__attribute__((noinline)) static void deep_alloc(int n)
{
	if (n) {
		deep_alloc(n - 1);
		__asm__ volatile("" ::: "memory");
		return;
	}
	keep = malloc(100);
}

__attribute__((noinline)) static void handler_keep(void)
{
	kept[handled] = malloc(5000);
}

static void on_usr1(int sig)
{
	(void)sig;
	deep_alloc(20);
	free(keep);
	handler_keep();
	handled++;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	stack_t ss;

	if (argc != 2)
		return 2;
	ss.ss_size = (size_t)atol(argv[1]);
	ss.ss_sp = malloc(ss.ss_size);
	ss.ss_flags = 0;
	if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 100; i++)
		raise(SIGUSR1);
	printf("handled %d\n", handled);
	return 0;
}
