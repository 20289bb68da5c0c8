/*
 * cli/launcher_wake.c - the waker thread: a recorder cannot write to an
 * eventfd of the launcher, but it can FUTEX_WAKE a word of the launcher
 * file it maps; this thread turns that wake into an eventfd the collector's
 * ppoll watches with its other descriptors.  It sleeps in the kernel
 * between wakes: it costs the program no processor time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli/launcher_wake.h"

static _Atomic uint32_t *wake_word;
static int wake_fd = -1;

static void *waker_main(void *arg)
{
	uint64_t one = 1;

	(void)arg;
	while (atomic_load_explicit(wake_word, memory_order_acquire) == 0) {
		long rc = syscall(SYS_futex, wake_word, FUTEX_WAIT, 0, NULL, NULL, 0);

		/* 0: a recorder woke it (or a spurious wake: one round more) */
		if (rc == 0 && atomic_load_explicit(wake_word, memory_order_acquire) == 0 &&
		    write(wake_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			break;
	}
	return NULL;
}

int launcher_wake_start(_Atomic uint32_t *word)
{
	pthread_attr_t attr;
	pthread_t thread;
	sigset_t all, old;
	int rc;

	if (!word || wake_fd >= 0)
		return wake_fd;
	wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (wake_fd < 0)
		return -1;
	wake_word = word;
	/* the collector's signals are its own: the thread blocks them all */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 << 10);
	rc = pthread_create(&thread, &attr, waker_main, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(wake_fd);
		wake_fd = -1;
		wake_word = NULL;
	}
	return wake_fd;
}

void launcher_wake_drain(void)
{
	uint64_t n;

	if (wake_fd >= 0)
		while (read(wake_fd, &n, sizeof(n)) > 0)
			;
}

void launcher_wake_stop(void)
{
	if (!wake_word)
		return;
	atomic_store_explicit(wake_word, 1, memory_order_release);
	syscall(SYS_futex, wake_word, FUTEX_WAKE, 1, NULL, NULL, 0);
}
