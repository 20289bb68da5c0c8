/*
 * toggle_taken.c - run with `mprof run --paused` (SIGUSR2 toggles): with
 * the argument "take" it installs a SIGUSR2 handler of its own once it
 * runs, as Go's runtime and HotSpot's JVM do, which takes the toggle
 * signal from the recorder; without it, it leaves SIGUSR2 alone.  Then a
 * thread allocates, and the program raises SIGUSR2 and allocates again.
 * With a second argument FILE it then creates FILE and waits until the test,
 * which sends SIGUSR2 to mprof meanwhile, creates FILE.sent (up to 60 s),
 * and 2 s more: mprof must keep the signal from a program that took it
 * (HotSpot died of it) and say so.  "take-stopped" does the same after
 * stopping its parent, the launcher, first thing in main: the test
 * continues it after sending the signal, so the launcher decides before it
 * looked at the program's process file.
 *
 * Facts (tests/e2e/toggle-taken.sh): stdout "took SIGUSR2: yes, caught 1"
 * with "take" or "take-stopped" (the signal sent to mprof does not arrive), else "took
 * SIGUSR2: no, caught 0"; exit status 0.  Without "take" the raise toggles
 * recording on: the malloc of 64 bytes in after_toggle is recorded.
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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
	int take = argc > 1 && strncmp(argv[1], "take", 4) == 0;
	pthread_t t;

	if (take && strcmp(argv[1], "take-stopped") == 0)
		kill(getppid(), SIGSTOP);
	if (take)
		signal(SIGUSR2, own_handler);
	if (pthread_create(&t, NULL, thread_main, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	raise(SIGUSR2);
	after_toggle();
	if (argc > 2) {
		struct timespec pause = { 0, 10000000 };
		char sent[4096];
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0600);

		if (fd < 0 || snprintf(sent, sizeof(sent), "%s.sent", argv[2]) >= (int)sizeof(sent))
			return 1;
		close(fd);
		for (int i = 0; i < 6000 && access(sent, F_OK) != 0; i++)
			nanosleep(&pause, NULL);
		for (int i = 0; i < 200; i++)
			nanosleep(&pause, NULL);
	}
	printf("took SIGUSR2: %s, caught %d\n", take ? "yes" : "no", (int)caught);
	return 0;
}
