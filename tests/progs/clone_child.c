/*
 * clone_child.c - a child made without fork(): clone() or clone3() without
 * CLONE_VM (as sandboxes and container tools do), which runs no
 * pthread_atfork handler, allocating while its parent does.
 *
 * Usage: clone_child MODE   (MODE: clone, syscall, clone3, clone-fork: the
 * clone child forks first, and its child allocates)
 * Expected facts (tests/e2e/fork-exec-children.sh): the parent's trace
 * holds exactly its own allocations: parent_work 1000 x malloc(111), all
 * live at exit; the child's (child_work, 1000 x malloc(999)) are in no
 * trace of the parent's, and in clone-fork mode in no trace at all (no
 * trace may name the parent as its fork parent); in syscall and clone3
 * modes (no other thread, so the recorder runs its fork handlers around
 * the call) they are the child's own trace's, all live at exit.  Exit status: the
 * child's, 5; no stdio.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3 435
#endif

struct clone3_args { /* linux/sched.h's struct clone_args, version 0 */
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static void *volatile sink;

__attribute__((noinline)) static int child_work(void *arg)
{
	(void)arg;
	for (int i = 0; i < 1000; i++) {
		sink = malloc(999);
		if (i % 100 == 0)
			usleep(500);
	}
	return 5;
}

/* The clone child forks before it allocates; its child does the work. */
static int fork_then_work(void *arg)
{
	pid_t pid = fork();
	int status = 0;

	(void)arg;
	if (pid == 0)
		_exit(child_work(NULL));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}

__attribute__((noinline)) static void parent_work(void)
{
	for (int i = 0; i < 1000; i++) {
		sink = malloc(111);
		if (i % 100 == 0)
			usleep(500);
	}
}

int main(int argc, char **argv)
{
	static char stack[1 << 16] __attribute__((aligned(16)));
	const char *mode = argc > 1 ? argv[1] : "clone";
	pid_t pid;
	int status = 0;

	if (strcmp(mode, "clone") == 0) {
		pid = clone(child_work, stack + sizeof(stack), SIGCHLD, NULL);
	} else if (strcmp(mode, "clone-fork") == 0) {
		pid = clone(fork_then_work, stack + sizeof(stack), SIGCHLD, NULL);
	} else if (strcmp(mode, "syscall") == 0) {
		pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
		if (pid == 0)
			_exit(child_work(NULL));
	} else {
		struct clone3_args a = {.exit_signal = SIGCHLD};

		pid = (pid_t)syscall(SYS_clone3, &a, sizeof(a));
		if (pid == 0)
			_exit(child_work(NULL));
	}
	if (pid < 0)
		return 77;
	parent_work();
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
