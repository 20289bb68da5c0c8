/*
 * toggle_default.c - run with `mprof run --paused` (SIGUSR2 toggles): sets
 * SIGUSR2 to SIG_DFL through sigaction with flags (SA_RESTART,
 * SA_RESETHAND) and a mask ({SIGINT}), as a program that restores a saved
 * default action does, and reads the action back: mprof's handler stays
 * (it stands for the default), and the action reads as the one set.  Then
 * raises SIGUSR2 twice: each toggles recording (mprof's handler kept
 * neither SA_RESETHAND nor the program's lack of SA_RESTART), and
 * after_toggle's 64 bytes, between them, are recorded.
 *
 * Facts (tests/e2e/toggle-default.sh): stdout, exit status 0 (without
 * mprof, which it finds through mprof.h's weak symbols, the first two
 * lines only: a default SIGUSR2 would end it):
 *   at start: default, flags 0, SIGINT masked 0
 *   after set: default, flags 0x90000000, SIGINT masked 1
 *   raised twice: running yes, no
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mprof.h"

/* The kernel's flag that the C library's sigaction adds, not shown. */
#define RESTORER 0x04000000

/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile block;

__attribute__((noinline)) static void after_toggle(void)
{
	block = malloc(64);
	free(block);
}

/* Prints SIGUSR2's action as "WHAT: default|other, flags F, SIGINT masked M". */
static int show(const char *what)
{
	struct sigaction now;

	memset(&now, 0, sizeof(now));
	if (sigaction(SIGUSR2, NULL, &now) != 0)
		return -1;
	printf("%s: %s, flags %#x, SIGINT masked %d\n", what,
	       now.sa_handler == SIG_DFL ? "default" : "other", (unsigned)now.sa_flags & ~RESTORER,
	       sigismember(&now.sa_mask, SIGINT));
	return 0;
}

int main(void)
{
	struct sigaction dfl;
	int first, second;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (show("at start") != 0)
		return 1;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	dfl.sa_flags = SA_RESTART | SA_RESETHAND;
	sigemptyset(&dfl.sa_mask);
	sigaddset(&dfl.sa_mask, SIGINT);
	if (sigaction(SIGUSR2, &dfl, NULL) != 0 || show("after set") != 0)
		return 1;
	if (!mprof_api_is_running) /* a default SIGUSR2 ends the program */
		return 0;
	raise(SIGUSR2); /* applied at the next allocator call */
	after_toggle();
	first = mprof_is_running();
	raise(SIGUSR2);
	block = malloc(1);
	free(block);
	second = mprof_is_running();
	printf("raised twice: running %s, %s\n", first ? "yes" : "no", second ? "yes" : "no");
	return 0;
}
