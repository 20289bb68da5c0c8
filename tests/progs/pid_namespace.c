/*
 * pid_namespace.c - does its work in a new PID namespace (unshare with
 * CLONE_NEWPID, or with CLONE_NEWUSER too where only that is allowed, /proc
 * left as it is), whose pids mean other processes, or none, to whoever looks
 * from outside.  Each process there writes "ns PID HOST_PID" on stdout: its
 * pid in the namespace and outside (the first field of NStgid in
 * /proc/self/status).
 *
 * "tree": the namespace's first process (pid 1 there) holds 50 MiB from
 * hold_block, touched, for 400 ms and frees it, then forks a child (pid 2
 * there) that holds 30 MiB from hold_block, touched, for 400 ms and ends by
 * _exit(3) (no exit handler runs); the first process exits with 5.
 * "busy [GO_FILE]": the namespace's first process runs 8 threads that each
 * make 300000 allocations from churn_block, freed at once (with GO_FILE,
 * once that file exists, 60 s at most: the test stops mprof first), and
 * exits with 5.
 * "mounted": the namespace's first process, in a mount namespace of its own
 * too, mounts a /proc of the new PID namespace, where NStgid shows only
 * pids inside (it writes no pids but its own); then it starts this program
 * with "hold" by posix_spawn, which holds 30 MiB from hold_block for 400 ms,
 * frees them and ends by _exit(3), and forks a child that holds 20 MiB the
 * same way and ends by _exit(4); it exits with 5.
 * "late", in mprof's own namespace: sleeps 3 s (with "late FILE": until
 * FILE exists, up to 60 s), then forks a child that holds 30 MiB the same
 * way and ends by _exit(3); exits with 3.
 * The program exits with the status of the namespace's first process, or 77
 * when no namespace (or, for "mounted", no /proc of its own) could be made.
 * Facts: tree: hold_block, in the first: 1 allocation of 52428800 bytes,
 * freed; in the second: 1 of 31457280 bytes, live when it ends.  busy:
 * churn_block 2400000 allocations, all freed.  mounted: hold_block, in the
 * spawned program: 1 allocation of 31457280 bytes, in the fork child: 1 of
 * 20971520 bytes, each freed.  late: hold_block, in the child: 1 of 31457280
 * bytes, freed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define BUSY_THREADS 8
#define BUSY_ALLOCS 300000

static char *volatile held;

__attribute__((noinline)) static char *hold_block(size_t bytes)
{
	return malloc(bytes);
}

__attribute__((noinline)) static void *churn_block(size_t bytes)
{
	return malloc(bytes);
}

/* The first field of NStgid in /proc/self/status, or 0. */
static long host_pid(void)
{
	char status[4096];
	const char *line;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, status, sizeof(status) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	status[n] = '\0';
	line = strstr(status, "\nNStgid:");
	return line ? strtol(line + 8, NULL, 10) : 0;
}

/* Writes "ns PID HOST_PID" (write(2): stdio's buffer would be a block). */
static void say_pids(void)
{
	char line[64];
	int len = snprintf(line, sizeof(line), "ns %ld %ld\n", (long)getpid(), host_pid());

	if (write(1, line, (size_t)len) != len)
		_exit(1);
}

/* Holds a touched block of bytes from hold_block for 400 ms. */
static void hold(size_t bytes)
{
	held = hold_block(bytes);
	if (!held)
		_exit(1);
	memset(held, 1, bytes);
	usleep(400000);
}

static int tree(void)
{
	int status;
	pid_t child;

	hold(50u << 20);
	free(held);
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		say_pids();
		hold(30u << 20);
		_exit(3);
	}
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 3)
		return 1;
	return 5;
}

static void *churn(void *arg)
{
	(void)arg;
	for (long i = 0; i < BUSY_ALLOCS; i++)
		free(churn_block(16 + (size_t)(i & 1023)));
	return NULL;
}

static int busy(const char *go)
{
	pthread_t threads[BUSY_THREADS];

	for (int i = 0; go && i < 60000 && access(go, F_OK) != 0; i++)
		usleep(1000);

	for (int i = 0; i < BUSY_THREADS; i++)
		if (pthread_create(&threads[i], NULL, churn, NULL) != 0)
			return 1;
	for (int i = 0; i < BUSY_THREADS; i++)
		pthread_join(threads[i], NULL);
	return 5;
}

/* Whether pid ended by _exit(status). */
static int ended_with(pid_t pid, int status)
{
	int st;

	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == status;
}

static int mounted(const char *self)
{
	char *hold_argv[] = { (char *)self, (char *)"hold", NULL };
	pid_t spawned, child;

	/* private first: a shared / would pass the mount on to the machine */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("proc", "/proc", "proc", 0, NULL) != 0) {
		perror("mount");
		return 77;
	}
	if (posix_spawn(&spawned, self, NULL, NULL, hold_argv, environ) != 0)
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (child == 0) {
		hold(20u << 20);
		free(held);
		_exit(4);
	}
	return ended_with(spawned, 3) && ended_with(child, 4) ? 5 : 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "tree";
	int flags = strcmp(mode, "mounted") == 0 ? CLONE_NEWPID | CLONE_NEWNS : CLONE_NEWPID;
	int status;
	pid_t first;

	if (strcmp(mode, "hold") == 0) {
		hold(30u << 20);
		free(held);
		_exit(3);
	}
	if (strcmp(mode, "late") == 0) {
		if (argc > 2) {
			for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++)
				usleep(10000);
		} else {
			sleep(3);
		}
		first = fork();
		if (first == 0) {
			hold(30u << 20);
			free(held);
			_exit(3);
		}
		return first > 0 && ended_with(first, 3) ? 3 : 1;
	}
	if (unshare(flags) != 0 && unshare(CLONE_NEWUSER | flags) != 0) {
		perror("unshare");
		return 77;
	}
	first = fork();
	if (first < 0)
		return 1;
	if (first == 0) {
		say_pids();
		if (strcmp(mode, "mounted") == 0)
			exit(mounted(argv[0]));
		exit(strcmp(mode, "busy") == 0 ? busy(argc > 2 ? argv[2] : NULL) : tree());
	}
	if (waitpid(first, &status, 0) != first || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
