/*
 * tests/progs/reaped_children.c - fork children that end in four ways and
 * are reaped at once by one call of the wait family, for what their traces
 * say of how they ended (tests/e2e/reaped-children.sh).
 *
 * Usage: reaped_children HOW      (the parent)
 *        reaped_children end WAY  (one child's work, for a shell or Python
 *                                  as the parent)
 *        reaped_children burst N  (N children in a row, each leaving one
 *                                  block, then _exit(4) (even ones) or
 *                                  raise(SIGKILL) (odd ones), each reaped
 *                                  by waitpid as soon as it is forked;
 *                                  prints "burst N")
 *        reaped_children burst-go N DIR  (as burst, begun once DIR/go
 *                                  exists: writes DIR/ready, then looks
 *                                  for DIR/go every millisecond, for 60 s
 *                                  at most; DIR/reaped holds how many
 *                                  children were reaped so far, 8 digits)
 * The parent forks, one at a time, four children, each leaving N blocks of
 * 1000 B live in keep_blocks() and then ending by WAY:
 *   exit   N = 3, exit(3);
 *   quick  N = 4, _exit(4);
 *   kill   N = 5, raise(SIGKILL);
 *   segv   N = 6, raise(SIGSEGV) (core dumps off).
 * Each is reaped as soon as it is forked, by HOW:
 *   waitpid  waitpid(pid, &st, 0)         wait    wait(&st)
 *   wait3    wait3(&st, 0, &ru)            wait4   wait4(pid, &st, 0, &ru)
 *   waitid   waitid(P_PID, pid, &si, WEXITED)
 *   pidfd    waitid(P_PIDFD, pidfd_open(pid), &si, WEXITED)
 *   nohang   waitpid(pid, &st, WNOHANG) every 1 ms until it returns pid
 *   nowait   waitid(P_ALL, 0, &si, WEXITED | WNOWAIT), then
 *            waitid(P_PID, pid, NULL, WEXITED)
 * and, once all are reaped (so that no child inherits a stdio buffer),
 * prints one line per child, "exit S" or "signal N" as the call returned
 * it, then "then -1 ECHILD" from one more wait(NULL) (what the calls
 * return must not change under mprof).  Exit status 2 when a call did not
 * return the child's pid.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile keep;

__attribute__((noinline)) static void keep_blocks(int n)
{
	for (int i = 0; i < n; i++)
		keep = malloc(1000);
}

static const char *const ways[] = { "exit", "quick", "kill", "segv" };

/* Ends the process by way (one of ways[]), after its blocks. */
static void end_by(const char *way)
{
	struct rlimit no_core = { 0, 0 };

	if (strcmp(way, "exit") == 0) {
		keep_blocks(3);
		exit(3);
	}
	if (strcmp(way, "quick") == 0) {
		keep_blocks(4);
		_exit(4);
	}
	if (strcmp(way, "kill") == 0) {
		keep_blocks(5);
		raise(SIGKILL);
	}
	if (strcmp(way, "segv") == 0) {
		keep_blocks(6);
		setrlimit(RLIMIT_CORE, &no_core);
		raise(SIGSEGV);
	}
	_exit(99);
}

/* A wait status from waitid's answer. */
static int status_of(const siginfo_t *si)
{
	if (si->si_code == CLD_EXITED)
		return (si->si_status & 0xff) << 8;
	return si->si_status | (si->si_code == CLD_DUMPED ? 0x80 : 0);
}

/* Reaps pid by how; returns what the call returned (a pid, -1), the
 * status in *st. */
static pid_t reap(const char *how, pid_t pid, int *st)
{
	struct timespec ms = { 0, 1000000L };
	struct rusage ru;
	siginfo_t si;
	pid_t r;

	memset(&si, 0, sizeof(si));
	if (strcmp(how, "waitpid") == 0)
		return waitpid(pid, st, 0);
	if (strcmp(how, "wait") == 0)
		return wait(st);
	if (strcmp(how, "wait3") == 0)
		return wait3(st, 0, &ru);
	if (strcmp(how, "wait4") == 0)
		return wait4(pid, st, 0, &ru);
	if (strcmp(how, "nohang") == 0) {
		while ((r = waitpid(pid, st, WNOHANG)) == 0)
			nanosleep(&ms, NULL);
		return r;
	}
	if (strcmp(how, "waitid") == 0) {
		if (waitid(P_PID, (id_t)pid, &si, WEXITED) != 0)
			return -1;
	} else if (strcmp(how, "pidfd") == 0) {
		int fd = (int)syscall(SYS_pidfd_open, pid, 0);

		if (fd < 0 || waitid(P_PIDFD, (id_t)fd, &si, WEXITED) != 0)
			return -1;
		close(fd);
	} else if (strcmp(how, "nowait") == 0) {
		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) != 0 || si.si_pid != pid ||
		    waitid(P_PID, (id_t)pid, NULL, WEXITED) != 0)
			return -1;
	} else {
		return -1;
	}
	*st = status_of(&si);
	return si.si_pid;
}

/* burst mode: n children forked, ended and reaped one after another, faster
 * than the launcher looks for new process files. */
static int burst(int n, int progress_fd)
{
	for (int k = 0; k < n; k++) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 1;
		if (pid == 0) {
			keep_blocks(1);
			if (k % 2 == 0)
				_exit(4);
			raise(SIGKILL);
		}
		if (waitpid(pid, &st, 0) != pid)
			return 2;
		if (progress_fd >= 0) {
			char num[16];

			snprintf(num, sizeof(num), "%08d", k + 1);
			if (pwrite(progress_fd, num, 8, 0) != 8)
				return 2;
		}
	}
	printf("burst %d\n", n);
	return 0;
}

/* burst-go mode: makes dir/reaped, writes dir/ready and waits for dir/go;
 * returns a descriptor of dir/reaped, or -1. */
static int wait_go(const char *dir)
{
	struct timespec ms = { 0, 1000000 };
	char path[4096];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "%s/reaped", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, "00000000", 8) != 8)
		return -1;
	snprintf(path, sizeof(path), "%s/ready", dir);
	f = fopen(path, "w");
	if (!f || fclose(f) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/go", dir);
	for (int i = 0; i < 60000; i++) {
		if (access(path, F_OK) == 0)
			return fd;
		nanosleep(&ms, NULL);
	}
	return -1;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "waitpid";

	if (strcmp(how, "burst-go") == 0 && argc > 3) {
		int fd = wait_go(argv[3]);

		return fd >= 0 ? burst(atoi(argv[2]), fd) : 3;
	}

	if (strcmp(how, "end") == 0 && argc > 2)
		end_by(argv[2]);
	if (strcmp(how, "burst") == 0 && argc > 2)
		return burst(atoi(argv[2]), -1);
	int st[4] = { 0 };
	pid_t r;

	for (int k = 0; k < 4; k++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			end_by(ways[k]);
		if (reap(how, pid, &st[k]) != pid)
			return 2;
	}
	for (int k = 0; k < 4; k++) {
		if (WIFSIGNALED(st[k]))
			printf("signal %d\n", WTERMSIG(st[k]));
		else
			printf("exit %d\n", WEXITSTATUS(st[k]));
	}
	errno = 0;
	r = wait(NULL);
	printf("then %d %s\n", (int)r, errno == ECHILD ? "ECHILD" : strerror(errno));
	return 0;
}
