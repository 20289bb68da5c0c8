/*
 * idle_toggles.c - a server that is idle while recording is toggled: it
 * makes no allocator call between the toggle signals, so the recorder
 * applies them all at once at its next call (tests/e2e/idle-toggles.sh).
 *
 * Usage: idle_toggles PREFIX
 *   writes its pid to PREFIX.pid, then waits without calling the allocator
 *   (access and nanosleep) until PREFIX.go exists, allocates 40 blocks of
 *   40 bytes in idle_window() and frees them; exits 3 when the wait passes
 *   60 s.  Prints "idle_toggles done".
 * Facts: after an even number of toggles sent to a --paused run while it
 * waits, idle_window() is not recorded; after an odd number its 40 blocks
 * (1600 bytes) are, every one freed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pid_file.h"

static __attribute__((noinline)) void *idle_window(size_t size)
{
	void *p = malloc(size);

	__asm__ volatile("" ::"r"(p) : "memory");
	return p;
}

int main(int argc, char **argv)
{
	char pid_path[4096], go_path[4096];
	struct timespec ms = { 0, 1000000 };
	void *blocks[40];
	int i;

	if (argc != 2)
		return 2;
	snprintf(pid_path, sizeof(pid_path), "%s.pid", argv[1]);
	snprintf(go_path, sizeof(go_path), "%s.go", argv[1]);
	write_pid(pid_path);
	for (i = 0; i < 60000 && access(go_path, F_OK) != 0; i++)
		nanosleep(&ms, NULL);
	if (access(go_path, F_OK) != 0)
		return 3;
	for (i = 0; i < 40; i++)
		blocks[i] = idle_window(40);
	for (i = 0; i < 40; i++)
		free(blocks[i]);
	printf("idle_toggles done\n");
	return 0;
}
