/*
 * tests/progs/fork_state.c - a fork child starts in its parent's recording
 * state at the fork, which mprof.h's start and stop changed since the exec
 * (tests/e2e/fork-state.sh).  Run under an exact `mprof run`.
 *
 * Usage: fork_state MODE
 *   sampled  20 x malloc(64) in before_switch() (recorded: the run is
 *            exact); mprof_start(4096) switches to sampling; 1000 x
 *            malloc(64) in after_switch() (some sampled), kept; fork.  The
 *            child makes 1000 x malloc(64) in child_leak() (sampled at
 *            4096 B, never freed) and frees the parent's 1020 blocks: the
 *            frees of those after_switch() did not sample are frees of
 *            unrecorded blocks, not unmatched.  The parent frees its 1020.
 *   stopped  mprof_stop(); fork.  The child makes 5 x malloc(1000) in
 *            while_stopped() (not recorded), mprof_start(MPROF_RATE_EVERY),
 *            7 x malloc(1024) in child_leak() (recorded, never freed).  So
 *            the child's trace: recorded in part, 7 leaked blocks of 7168 B.
 * Each process writes "fork_state MODE parent|child\n" with write(2) once
 * its recording is over.  Exit status 0; 1 when an mprof call failed.
 */
#include <mprof.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *volatile keep[1020];
static void *volatile leak;

__attribute__((noinline)) static void before_switch(void)
{
	for (int i = 0; i < 20; i++)
		keep[i] = malloc(64);
}

__attribute__((noinline)) static void after_switch(void)
{
	for (int i = 20; i < 1020; i++)
		keep[i] = malloc(64);
}

__attribute__((noinline)) static void child_leak(int n, size_t bytes)
{
	for (int i = 0; i < n; i++)
		leak = malloc(bytes);
}

__attribute__((noinline)) static void while_stopped(void)
{
	for (int i = 0; i < 5; i++)
		leak = malloc(1000);
}

static void say(const char *mode, const char *who)
{
	char line[64];
	int n = snprintf(line, sizeof(line), "fork_state %s %s\n", mode, who);

	if (write(1, line, (size_t)n) != n)
		_exit(1);
}

static int child(const char *mode)
{
	if (strcmp(mode, "sampled") == 0) {
		child_leak(1000, 64);
		for (int i = 0; i < 1020; i++)
			free(keep[i]);
	} else {
		while_stopped();
		if (mprof_start(MPROF_RATE_EVERY) != 0)
			return 1;
		child_leak(7, 1024);
	}
	say(mode, "child");
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int status;
	pid_t pid;

	if (strcmp(mode, "sampled") == 0) {
		before_switch();
		if (mprof_start(4096) != 0)
			return 1;
		after_switch();
	} else if (strcmp(mode, "stopped") == 0) {
		if (mprof_stop() != 0)
			return 1;
	} else {
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(child(mode));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return 1;
	if (strcmp(mode, "sampled") == 0)
		for (int i = 0; i < 1020; i++)
			free(keep[i]);
	say(mode, "parent");
	return 0;
}
