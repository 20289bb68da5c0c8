/*
 * ending_children.c - a program that ends while processes it started still
 * run, as Python's multiprocessing leaves its resource tracker.  It prints
 * "KIND:PID" for each child, one a line, and ends at once (status 0).
 *
 *   ending_children late     a child that reads a pipe to its end (the
 *                            program's end closes it), sleeps 100 ms,
 *                            makes 50 allocations of 32 bytes in
 *                            late_work, frees them and exits with status 3
 *   ending_children daemon PID_FILE
 *                            a child that reads the pipe to its end too,
 *                            then sleeps 50 ms, forks the daemon (a
 *                            grandchild started after the program ended),
 *                            writes its pid to PID_FILE and exits with
 *                            status 0; the daemon makes 20 allocations in
 *                            daemon_work and sleeps 60 s (whoever runs
 *                            this kills it)
 *   ending_children busy SECONDS
 *                            a child that reads the pipe to its end, keeps
 *                            the processor busy for SECONDS (wall clock),
 *                            makes 30 allocations of 40 bytes in busy_work,
 *                            frees them and exits with status 4
 *   ending_children stopped  a child that makes 10 allocations in
 *                            stopped_work and stops itself (SIGSTOP)
 *                            before the program ends; whoever runs this
 *                            kills it
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink[50];

__attribute__((noinline)) static void allocate_free(int n, size_t bytes)
{
	for (int i = 0; i < n; i++)
		sink[i] = malloc(bytes);
	for (int i = 0; i < n; i++)
		free(sink[i]);
}

__attribute__((noinline)) static void late_work(void)
{
	allocate_free(50, 32);
}

__attribute__((noinline)) static void daemon_work(void)
{
	allocate_free(20, 48);
}

__attribute__((noinline)) static void busy_work(void)
{
	allocate_free(30, 40);
}

__attribute__((noinline)) static void stopped_work(void)
{
	allocate_free(10, 64);
}

/* Returns once the program's end has closed the pipe's write end. */
static void parent_end_wait(int fd)
{
	char c;

	while (read(fd, &c, 1) > 0)
		;
}

static void late_child(int fd)
{
	parent_end_wait(fd);
	usleep(100000);
	late_work();
	exit(3);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void busy_child(int fd, double seconds)
{
	volatile unsigned long spins = 0;
	double end;

	parent_end_wait(fd);
	end = now_s() + seconds;
	while (now_s() < end)
		spins++;
	busy_work();
	exit(4);
}

static void daemon_child(int fd, const char *pid_file)
{
	pid_t pid;

	parent_end_wait(fd);
	usleep(50000);
	pid = fork();
	if (pid == 0) {
		daemon_work();
		sleep(60);
		_exit(0);
	}
	if (pid > 0) {
		FILE *f = fopen(pid_file, "w");

		if (f) {
			fprintf(f, "%d\n", (int)pid);
			fclose(f);
		}
	}
	exit(0);
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	int fds[2];
	pid_t pid;

	if (strcmp(kind, "late") && strcmp(kind, "stopped") &&
	    ((strcmp(kind, "daemon") && strcmp(kind, "busy")) || argc < 3)) {
		fprintf(stderr, "usage: ending_children late|daemon PID_FILE|busy SECONDS|stopped\n");
		return 2;
	}
	if (pipe(fds) != 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		close(fds[1]);
		if (strcmp(kind, "late") == 0)
			late_child(fds[0]);
		if (strcmp(kind, "daemon") == 0)
			daemon_child(fds[0], argv[2]);
		if (strcmp(kind, "busy") == 0)
			busy_child(fds[0], atof(argv[2]));
		stopped_work();
		raise(SIGSTOP);
		_exit(0);
	}
	close(fds[0]);
	if (strcmp(kind, "stopped") == 0) {
		int status;

		waitpid(pid, &status, WUNTRACED);
	}
	printf("%s:%d\n", kind, (int)pid);
	return 0;
}
