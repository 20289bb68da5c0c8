/*
 * pid_reuse.c - a process ends, is reaped, and its pid goes to another
 * process before the launcher looks again.  Run under `mprof run` as the
 * launcher's child, where the launcher's PID namespace is one whose
 * ns_last_pid this program may write (unshare -p -f --mount-proc, as root).
 *
 * It forks "early", which makes 3 allocations of 12345 bytes from
 * early_block, says so on a pipe and sleeps; 300 ms later (the launcher has
 * taken it in) the program stops the launcher (SIGSTOP, until /proc shows
 * it stopped), kills early with SIGKILL (no exit note: its figures are the
 * launcher's own reads), reaps it, sets ns_last_pid so that the next fork
 * gets early's pid, and forks "late" there: late names itself "newcomer"
 * (PR_SET_NAME), holds 64 MiB from late_block, touched, says so, and sleeps
 * 1.5 s before it exits 0.  Once late holds its block the launcher goes on
 * (SIGCONT).  The program writes "reused PID" when late got early's pid,
 * waits for late and exits 0; it exits 77 when the pid could not be reused
 * (ns_last_pid not writable, the launcher not its parent).
 * Facts: early: early_block 3 allocations of 12345 bytes, live when it was
 * killed, a peak RSS below 64 MiB, a run under 1.5 s, its own names.
 *
 * "pid_reuse first" stops the launcher before it forks early, so that the
 * launcher's first look at early finds late on its pid, and does not wait
 * for late, which sleeps 3 s: late runs on when the program has ended.
 * It reaps early by the wait4 system call, which the recorder does not
 * note (as init reaping an orphan is not).
 * Facts: early's trace says it ended.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "launcher_stop.h"

#define LATE_BYTES (64u << 20)

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

__attribute__((noinline)) static void *early_block(size_t n)
{
	void *p = malloc(n);

	memset(p, 1, n);
	return p;
}

__attribute__((noinline)) static void *late_block(size_t n)
{
	void *p = malloc(n);

	memset(p, 2, n);
	return p;
}

static int last_pid_set(pid_t pid)
{
	char text[32];
	int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY);
	int len = snprintf(text, sizeof(text), "%d", (int)pid);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, (size_t)len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/* Stops the launcher until SIGCONT, once /proc shows it stopped. */
static int launcher_stop(pid_t launcher)
{
	if (kill(launcher, SIGSTOP) != 0)
		return -1;
	for (int i = 0; i < 5000 && launcher_stop_state_of(launcher) != 'T'; i++)
		nap_ms(1);
	return 0;
}

int main(int argc, char **argv)
{
	pid_t launcher = getppid(), early, late;
	int first = argc > 1 && strcmp(argv[1], "first") == 0;
	int ready[2], status;
	char c;

	if (pipe(ready) != 0)
		return 1;
	if (first && launcher_stop(launcher) != 0)
		return 77;
	early = fork();
	if (early == 0) {
		for (int i = 0; i < 3; i++)
			early_block(12345);
		(void)!write(ready[1], "e", 1);
		for (;;)
			pause();
	}
	if (early < 0 || read(ready[0], &c, 1) != 1)
		return 1;
	nap_ms(300);
	if (!first && launcher_stop(launcher) != 0)
		return 77;
	kill(early, SIGKILL);
	if (first) /* unseen by the recorder, as init reaping an orphan is */
		syscall(SYS_wait4, early, &status, 0, NULL);
	else
		waitpid(early, &status, 0);
	if (last_pid_set(early - 1) != 0) {
		kill(launcher, SIGCONT);
		return 77;
	}
	late = fork();
	if (late == 0) {
		prctl(PR_SET_NAME, "newcomer");
		late_block(LATE_BYTES);
		(void)!write(ready[1], "l", 1);
		nap_ms(first ? 3000 : 1500);
		_exit(0);
	}
	if (late > 0)
		(void)!read(ready[0], &c, 1);
	kill(launcher, SIGCONT);
	if (late < 0)
		return 1;
	if (!first)
		waitpid(late, &status, 0);
	if (late != early)
		return 77;
	printf("reused %d\n", (int)late);
	return 0;
}
