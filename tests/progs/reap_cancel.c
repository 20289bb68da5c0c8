/*
 * tests/progs/reap_cancel.c - threads cancelled inside waitpid() and
 * system(), then children reaped and one whose end nobody notes, for how
 * mprof names their ends and how long the launcher takes to finish the
 * last (tests/e2e/reap-cancel.sh).
 *
 * Usage: reap_cancel
 * In order:
 *   1. a thread blocks in waitpid() for a child that sleeps on a pipe and
 *      is cancelled there; the main thread kills that child (SIGKILL) and
 *      reaps it by waitpid (once the child has said that its fork() has
 *      returned, so its recorder has started: one killed while its fork
 *      handler ran would not be recorded);
 *   2. a thread blocks in system("exec sleep 60") and is cancelled there
 *      (the C library kills and reaps the shell);
 *   3. two children, reaped by waitpid: one _exit(5)s, one is killed by
 *      SIGKILL;
 *   4. with SIGCHLD ignored (the kernel reaps children at once, so nobody
 *      notes how they ended), a child killed by SIGKILL: the program waits
 *      until it is gone, then until the launcher has finished it (its
 *      process file leaves the session directory, $MPROF_SESSION).
 * Prints "cancelled waitpid", "waitpid child: signal 9", "cancelled
 * system", "child: exit 5", "child: signal 9", "unnoted child: finished",
 * one line each (a step that fails prints why and the program exits 1),
 * and on stderr "delay MS": the milliseconds from step 4's child gone to
 * its file gone.  Each wait is limited to 60 s.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_MS 60000

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void fail(const char *what)
{
	printf("%s\n", what);
	exit(1);
}

/* Whether thread tid is blocked in the wait4 system call (waitpid and
 * system() reach it): /proc/self/task/TID/syscall starts with its number. */
static bool in_wait4(pid_t tid)
{
	char path[64], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return atol(buf) == SYS_wait4 && buf[0] != 0;
}

static _Atomic pid_t waiter_tid;
static pid_t sleeper;

static void *wait_for_sleeper(void *arg)
{
	int st;

	waiter_tid = (pid_t)syscall(SYS_gettid);
	waitpid(sleeper, &st, 0);
	return arg;
}

static void *run_system(void *arg)
{
	waiter_tid = (pid_t)syscall(SYS_gettid);
	system("exec sleep 60");
	return arg;
}

/* Starts fn in a thread, waits until it blocks in wait4, cancels it. */
static void cancel_in_wait(void *(*fn)(void *), const char *what)
{
	long start = now_ms();
	pthread_t t;
	void *ret = NULL;

	waiter_tid = 0;
	if (pthread_create(&t, NULL, fn, NULL) != 0)
		fail("pthread_create failed");
	while (!waiter_tid || !in_wait4(waiter_tid)) {
		if (now_ms() - start > LIMIT_MS)
			fail("the thread never blocked in wait4");
		pause_ms(5);
	}
	if (pthread_cancel(t) != 0 || pthread_join(t, &ret) != 0 || ret != PTHREAD_CANCELED)
		fail("the cancellation failed");
	printf("cancelled %s\n", what);
}

static void print_status(const char *who, int st)
{
	if (WIFEXITED(st))
		printf("%s: exit %d\n", who, WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		printf("%s: signal %d\n", who, WTERMSIG(st));
}

/* Whether the session directory has the process file of pid (p.PID or
 * p.PID.N). */
static bool has_proc_file(const char *session, pid_t pid)
{
	char want[32];
	size_t n = (size_t)snprintf(want, sizeof(want), "p.%d", (int)pid);
	struct dirent *e;
	bool found = false;
	DIR *d = opendir(session);

	if (!d)
		return false;
	while (!found && (e = readdir(d)))
		found = strncmp(e->d_name, want, n) == 0 && (!e->d_name[n] || e->d_name[n] == '.');
	closedir(d);
	return found;
}

int main(void)
{
	const char *session = getenv("MPROF_SESSION");
	int hold[2], ready[2], st;
	char c;
	long gone, start;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!session || pipe(hold) != 0 || pipe(ready) != 0)
		fail("no session or pipe");
	/* 1 */
	sleeper = fork();
	if (sleeper == 0) {
		close(hold[1]);
		close(ready[0]);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		_exit(read(hold[0], &c, 1) == 1 ? 1 : 2);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		fail("the sleeper never started");
	cancel_in_wait(wait_for_sleeper, "waitpid");
	kill(sleeper, SIGKILL);
	if (waitpid(sleeper, &st, 0) != sleeper)
		fail("waitpid for the sleeper failed");
	print_status("waitpid child", st);
	/* 2 */
	cancel_in_wait(run_system, "system");
	/* 3 */
	for (int way = 0; way < 2; way++) {
		pid = fork();
		if (pid == 0) {
			if (way)
				kill(getpid(), SIGKILL);
			_exit(5);
		}
		if (waitpid(pid, &st, 0) != pid)
			fail("waitpid failed");
		print_status("child", st);
	}
	/* 4 */
	signal(SIGCHLD, SIG_IGN);
	pid = fork();
	if (pid == 0) {
		kill(getpid(), SIGKILL);
		_exit(6);
	}
	start = now_ms();
	while (kill(pid, 0) == 0 || errno != ESRCH) {
		if (now_ms() - start > LIMIT_MS)
			fail("the unnoted child never ended");
		pause_ms(1);
	}
	gone = now_ms();
	while (has_proc_file(session, pid)) {
		if (now_ms() - gone > LIMIT_MS)
			fail("the unnoted child was never finished");
		pause_ms(5);
	}
	printf("unnoted child: finished\n");
	fprintf(stderr, "delay %ld\n", now_ms() - gone);
	return 0;
}
