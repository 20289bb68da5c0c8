/*
 * toggle_times.c - a server that allocates, then sits idle while the toggle
 * signal is sent, then idles on for IDLE_MS before it allocates again: the
 * recorder applies the toggle at that later call, and the trace must time
 * it when it was sent (tests/e2e/toggle-times.sh).
 *
 * Usage: toggle_times PREFIX IDLE_MS
 *   allocates 30 blocks of 30 bytes in before_idle() (freed), sets the
 *   marker "ready" (mprof.h), writes its pid to PREFIX.pid, then waits
 *   without calling the allocator (access and nanosleep) until PREFIX.go
 *   exists (exits 3 when that takes 60 s), idles IDLE_MS more, allocates 50
 *   blocks of 50 bytes in after_idle() (freed) and prints
 *   "toggle_times go_ns=N": the CLOCK_MONOTONIC ns from just before the
 *   marker to just after it saw PREFIX.go.
 * Facts: a signal the test sends once it read PREFIX.pid, and whose handler
 * ran before it made PREFIX.go, was asked between the marker and go_ns
 * after it; it is applied at after_idle(), IDLE_MS later at least.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mprof.h"
#include "pid_file.h"

static __attribute__((noinline)) void *before_idle(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static __attribute__((noinline)) void *after_idle(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	char pid_path[4096], go_path[4096];
	struct timespec ms = { 0, 1000000 }, idle;
	void *blocks[50];
	uint64_t ready_ns, go_ns;
	int i;

	if (argc != 3)
		return 2;
	snprintf(pid_path, sizeof(pid_path), "%s.pid", argv[1]);
	snprintf(go_path, sizeof(go_path), "%s.go", argv[1]);
	idle.tv_sec = atoi(argv[2]) / 1000;
	idle.tv_nsec = (long)(atoi(argv[2]) % 1000) * 1000000;
	for (i = 0; i < 30; i++)
		blocks[i] = before_idle(30);
	for (i = 0; i < 30; i++)
		free(blocks[i]);
	ready_ns = now_ns();
	mprof_marker("ready");
	write_pid(pid_path);
	for (i = 0; i < 60000 && access(go_path, F_OK) != 0; i++)
		nanosleep(&ms, NULL);
	if (access(go_path, F_OK) != 0)
		return 3;
	go_ns = now_ns();
	/* the signal was taken before PREFIX.go was made: no EINTR here */
	while (nanosleep(&idle, &idle) != 0 && errno == EINTR)
		;
	for (i = 0; i < 50; i++)
		blocks[i] = after_idle(50);
	for (i = 0; i < 50; i++)
		free(blocks[i]);
	printf("toggle_times go_ns=%llu\n", (unsigned long long)(go_ns - ready_ns));
	return 0;
}
