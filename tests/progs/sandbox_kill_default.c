/*
 * tests/progs/sandbox_kill_default.c - a program that sandboxes itself with
 * a seccomp allow-list whose default kills the process (as OpenSSH's
 * preauth sandbox does), allowing only what it makes itself after the
 * filter (tests/e2e/sandbox-kill-default.sh).
 *
 * usage: sandbox_kill_default MODE [errno]
 *   (errno: the filter's default is EPERM instead of a kill, for listing
 *   under strace the calls made after the filter)
 * Before the filter: keeps 3 blocks of 1000 bytes; starts a thread that
 * waits on a pipe (mode thread); sets a SIGUSR1 handler (mode signal).
 * After it, by MODE:
 *   main    40 blocks of 1..3901 bytes, freed; returns 0
 *   exit    the same, then exit(4)
 *   _exit   the same, then _exit(3)
 *   free    frees the 3 blocks kept before the filter; returns 0
 *   signal  raise(SIGUSR1): the handler allocates and frees 40 blocks
 *   thread  lets the thread go: it allocates and frees 40 blocks, its
 *           first allocations, and says so; returns 0 (the thread still
 *           waiting)
 *   join    the same, but the thread ends and is joined
 * Every mode prints "MODE ok" (stdout's buffer: one more allocation).
 * Allocations: 3 + 40 + the buffer = 44 (free: 3 + the buffer = 4), and
 * in modes thread and join pthread_create's own (the thread's TLS vector).
 */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ALLOW(name)                                                                    \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_##name, 0, 1),                         \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define ALLOW_IF(cond, name)                                                           \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (cond) ? SYS_##name : ~0u, 0, 1),           \
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static void *volatile kept[3];
static int go_pipe[2], done_pipe[2];

static void churn(void)
{
	void *v[40];

	for (int i = 0; i < 40; i++)
		v[i] = malloc((size_t)i * 100 + 1);
	for (int i = 0; i < 40; i++)
		free(v[i]);
}

static void on_usr1(int sig)
{
	(void)sig;
	churn();
}

/* Says it runs, waits for the filter, allocates; then ends (arg non-NULL:
 * mode join), or says so and waits for good (the process's exit ends it: a
 * thread's end makes system calls of its own, rt_sigprocmask, exit). */
static void *worker(void *arg)
{
	char c;

	if (write(done_pipe[1], "r", 1) != 1 || read(go_pipe[0], &c, 1) != 1)
		return arg;
	churn();
	if (arg || write(done_pipe[1], "d", 1) != 1)
		return arg;
	for (;;)
		if (read(go_pipe[0], &c, 1) != 1)
			return arg;
}

/* Only the calls the program itself makes after the filter in that mode:
 * the allocator's, stdio's, the pipes', exit_group; raise's and the return
 * from the handler (signal); the thread's end and its join (join).
 * Installed in every thread (TSYNC), through
 * syscall() as libseccomp does. */
static int sandbox(const char *mode, int errno_default)
{
	int sig = strcmp(mode, "signal") == 0, join = strcmp(mode, "join") == 0;
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		ALLOW(read),
		ALLOW(write),
		ALLOW(brk),
		ALLOW(mmap),
		ALLOW(munmap),
		ALLOW(madvise),
		ALLOW(mprotect),
		ALLOW(fstat),
		ALLOW(newfstatat),
		ALLOW(exit_group),
		ALLOW_IF(sig, getpid),
		ALLOW_IF(sig, gettid),
		ALLOW_IF(sig, tgkill),
		ALLOW_IF(sig || join, rt_sigprocmask),
		ALLOW_IF(sig, rt_sigreturn),
		ALLOW_IF(join, futex),
		ALLOW_IF(join, exit),
		BPF_STMT(BPF_RET | BPF_K,
			 errno_default ? SECCOMP_RET_ERRNO | 1 : SECCOMP_RET_KILL_PROCESS),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
		perror("seccomp");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	pthread_t thread;
	char c;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: sandbox_kill_default main|exit|_exit|free|signal|thread|join "
				"[errno]\n");
		return 2;
	}
	for (int i = 0; i < 3; i++)
		kept[i] = malloc(1000);
	if ((strcmp(mode, "thread") == 0 || strcmp(mode, "join") == 0) &&
	    (pipe(go_pipe) != 0 || pipe(done_pipe) != 0 ||
	     pthread_create(&thread, NULL, worker, mode[0] == 'j' ? &thread : NULL) != 0 ||
	     read(done_pipe[0], &c, 1) != 1))
		return 2;
	if (strcmp(mode, "signal") == 0)
		signal(SIGUSR1, on_usr1);
	if (sandbox(mode, argc > 2))
		return 1;
	if (strcmp(mode, "free") == 0) {
		for (int i = 0; i < 3; i++)
			free(kept[i]);
	} else if (strcmp(mode, "signal") == 0) {
		raise(SIGUSR1);
	} else if (strcmp(mode, "thread") == 0) {
		if (write(go_pipe[1], "g", 1) != 1 || read(done_pipe[0], &c, 1) != 1)
			return 2;
	} else if (strcmp(mode, "join") == 0) {
		if (write(go_pipe[1], "g", 1) != 1 || pthread_join(thread, NULL) != 0)
			return 2;
	} else {
		churn();
	}
	printf("%s ok\n", mode);
	fflush(stdout);
	if (strcmp(mode, "exit") == 0)
		exit(4);
	if (strcmp(mode, "_exit") == 0)
		_exit(3);
	return 0;
}
