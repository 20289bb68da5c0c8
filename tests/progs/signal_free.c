/*
 * tests/progs/signal_free.c - frees inside a signal handler that may
 * interrupt the recorder (tests/e2e/signal-free.sh).
 *
 * usage: signal_free N
 * The main thread makes N blocks of 32-88 bytes; every other one it leaves
 * in a slot (freeing the block it takes out), the others it frees at once.
 * A second thread sends the main thread SIGUSR1 every 20 us; the handler
 * frees the block in the slot.  Prints "ok" and, on stderr, how many
 * signals arrived.  (free is not async-signal-safe; programs do it anyway.)
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static _Atomic(void *) slot;
static atomic_long signals;
static atomic_int done;
static pthread_t main_thread;

static void on_signal(int sig)
{
	(void)sig;
	free(atomic_exchange(&slot, NULL));
	atomic_fetch_add(&signals, 1);
}

static void *sender(void *arg)
{
	(void)arg;
	while (!atomic_load(&done)) {
		pthread_kill(main_thread, SIGUSR1);
		usleep(20);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	pthread_t t;

	if (n <= 0) {
		fprintf(stderr, "usage: signal_free N\n");
		return 2;
	}
	main_thread = pthread_self();
	signal(SIGUSR1, on_signal);
	if (pthread_create(&t, NULL, sender, NULL) != 0)
		return 1;
	for (long i = 0; i < n; i++) {
		void *p = malloc(32 + (size_t)(i & 7) * 8);

		if (i & 1)
			free(atomic_exchange(&slot, p));
		else
			free(p);
	}
	atomic_store(&done, 1);
	pthread_join(t, NULL);
	free(atomic_exchange(&slot, NULL));
	printf("ok\n");
	fprintf(stderr, "signals %ld\n", (long)atomic_load(&signals));
	return 0;
}
