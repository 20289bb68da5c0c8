/*
 * tests/progs/exec_unmap_race.c - execve of an environment another thread
 * unmaps at that moment.  One thread maps a region, fills it with a copy
 * of environ (slots and strings), publishes it and unmaps it, over and
 * over; the main thread vforks ROUNDS times and its child calls
 * execve("/bin/true", argv, the region published last).  Natively the
 * child runs /bin/true (status 0) or its execve fails with EFAULT (the
 * child exits 127) or another error (126).  Prints
 * "exec_unmap_race: rounds R ok O efault F other E signaled S".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 300
#define REGION_BYTES (64 * 1024)

extern char **environ;

static _Atomic(char **) published;
static atomic_int stop;

/* A copy of environ in a fresh mapping: the slots first, then the strings,
 * so that reading the slots and the entries crosses pages. */
static char **region_fill(void)
{
	size_t n = 0, at;
	char **slots, *base;

	while (environ[n])
		n++;
	base = mmap(NULL, REGION_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		    0);
	if (base == MAP_FAILED)
		return NULL;
	slots = (char **)(void *)base;
	at = (n + 1) * sizeof(char *);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(environ[i]) + 1;

		if (at + len > REGION_BYTES)
			len = 1; /* an empty entry: the region is full */
		memcpy(base + at, len > 1 ? environ[i] : "", len);
		slots[i] = base + at;
		at += len;
	}
	slots[n] = NULL;
	return slots;
}

static void *unmapper(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		char **slots = region_fill();

		if (!slots)
			continue;
		atomic_store(&published, slots);
		sched_yield();
		munmap(slots, REGION_BYTES);
	}
	return NULL;
}

int main(void)
{
	char *argv[] = { "true", NULL };
	int ok = 0, efault = 0, other = 0, signaled = 0;
	pthread_t t;

	if (pthread_create(&t, NULL, unmapper, NULL) != 0)
		return 2;
	while (!atomic_load(&published))
		sched_yield();
	for (int round = 0; round < ROUNDS; round++) {
		char **envp = atomic_load(&published);
		int status;
		pid_t pid = vfork();

		if (pid == 0) {
			execve("/bin/true", argv, envp);
			_exit(errno == EFAULT ? 127 : 126);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid)
			return 3;
		if (WIFSIGNALED(status))
			signaled++;
		else if (WEXITSTATUS(status) == 0)
			ok++;
		else if (WEXITSTATUS(status) == 127)
			efault++;
		else
			other++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	printf("exec_unmap_race: rounds %d ok %d efault %d other %d signaled %d\n", ROUNDS, ok,
	       efault, other, signaled);
	return signaled || other ? 1 : 0;
}
