/*
 * toggle_taken.c - run with `mprof run --paused` (SIGUSR2 toggles): with
 * the argument "take" it installs a SIGUSR2 handler of its own once it
 * runs, as Go's runtime does for every signal at its start, which takes
 * the toggle signal from the recorder; without it, it leaves SIGUSR2 alone.
 * Then a thread allocates, and the program raises SIGUSR2 and allocates
 * again.  mprof must say when the program took the signal (toggles sent to
 * a Go program did nothing, and nothing said why), and only then.
 *
 * Facts (tests/e2e/toggle-taken.sh): stdout "took SIGUSR2: yes, caught 1"
 * with "take", else "took SIGUSR2: no, caught 0"; exit status 0.  Without
 * "take" the raise toggles recording on: the last malloc (64 bytes, in
 * after_toggle) is recorded.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t caught;
/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile block;

static void own_handler(int sig)
{
	(void)sig;
	caught++;
}

static void *thread_main(void *arg)
{
	block = malloc(32);
	free(block);
	return arg;
}

__attribute__((noinline)) static void after_toggle(void)
{
	block = malloc(64);
	free(block);
}

int main(int argc, char **argv)
{
	int take = argc > 1 && strcmp(argv[1], "take") == 0;
	pthread_t t;

	if (take)
		signal(SIGUSR2, own_handler);
	if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	raise(SIGUSR2);
	after_toggle();
	printf("took SIGUSR2: %s, caught %d\n", take ? "yes" : "no", (int)caught);
	return 0;
}
