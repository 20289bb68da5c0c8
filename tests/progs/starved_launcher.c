/*
 * starved_launcher.c - blocks kept 50 ms while the test holds mprof's
 * launcher stopped (SIGSTOP), as a loaded host that does not schedule it
 * would: the recorder must time their frees itself
 * (tests/e2e/starved-launcher.sh).
 *
 * Usage: starved_launcher DIR SIZE
 *   starts a pacer thread that allocates and frees 100 16-byte blocks every
 *   0.2 ms (with rings of 64 KiB, a thread writing fast: the launcher then
 *   keeps its 1 ms rounds and never goes into the long idle wait in which
 *   the recorder timed events itself already), writes its pid to DIR/pid,
 *   then, for each of three rounds I (0, 1, 2): waits without calling the
 *   allocator until DIR/goI exists (exits 3 when that takes 60 s), takes
 *   CLOCK_MONOTONIC before and after allocating SIZE bytes in kept_0,
 *   kept_1 or kept_2, sleeps 50 ms, takes it before and after freeing the
 *   block, and writes "LEAST MOST" to DIR/doneI: the ns from the
 *   allocation's return to the free's call, and from the allocation's call
 *   to the free's return (a thread kept off the processor between a
 *   reading and the call it brackets widens the pair, never breaks it).
 *   Prints "ok" at the end.
 * Facts: each kept_I block lives at least LEAST ns (and 50 ms or more),
 * and at most MOST ns.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pid_file.h"

static _Atomic int pacer_stop;

static void nap_ns(long ns)
{
	struct timespec nap = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&nap, &nap) != 0)
		;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) void *pacer_block(void)
{
	void *p = malloc(16);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static void *pacer(void *arg)
{
	(void)arg;
	while (!atomic_load(&pacer_stop)) {
		for (int i = 0; i < 100; i++)
			free(pacer_block());
		nap_ns(200000L);
	}
	return NULL;
}

#define KEPT(n)                                                       \
	static __attribute__((noinline)) void *kept_##n(size_t size) \
	{                                                             \
		void *p = malloc(size);                               \
		__asm__ volatile("" ::"r"(p) : "memory");             \
		return p;                                             \
	}
KEPT(0)
KEPT(1)
KEPT(2)

/* Waits for path to exist, polling every ms; exits 3 after 60 s. */
static void wait_for(const char *path)
{
	for (int i = 0; i < 60000; i++) {
		if (access(path, F_OK) == 0)
			return;
		nap_ns(1000000L);
	}
	fprintf(stderr, "%s did not come\n", path);
	exit(3);
}

/* Writes "LEAST MOST\n" to path; exits 3 when it cannot. */
static void write_ns(const char *path, uint64_t least_ns, uint64_t most_ns)
{
	char text[64];
	int fd, n = snprintf(text, sizeof(text), "%llu %llu\n", (unsigned long long)least_ns,
			     (unsigned long long)most_ns);

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, text, (size_t)n) != n || close(fd) != 0) {
		perror(path);
		exit(3);
	}
}

int main(int argc, char **argv)
{
	void *(*const kept[3])(size_t) = { kept_0, kept_1, kept_2 };
	char path[4096];
	pthread_t th;
	size_t size;

	if (argc != 3)
		return 2;
	size = (size_t)strtoull(argv[2], NULL, 10);
	if (pthread_create(&th, NULL, pacer, NULL) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/pid", argv[1]);
	write_pid(path);
	for (int i = 0; i < 3; i++) {
		uint64_t t0, t1, t2, t3;
		void *volatile p;

		snprintf(path, sizeof(path), "%s/go%d", argv[1], i);
		wait_for(path);
		t0 = now_ns();
		p = kept[i](size);
		t1 = now_ns();
		nap_ns(50000000L);
		t2 = now_ns();
		free(p);
		t3 = now_ns();
		snprintf(path, sizeof(path), "%s/done%d", argv[1], i);
		write_ns(path, t2 - t1, t3 - t0);
	}
	atomic_store(&pacer_stop, 1);
	pthread_join(th, NULL);
	puts("ok");
	return 0;
}
