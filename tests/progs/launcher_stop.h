/*
 * tests/progs/launcher_stop.h - stopping the mprof launcher (the program's
 * parent under `mprof run`) for a while, so that a recorder's ring fills
 * and it must wait for room (ring_wait_named.c, seccomp_waits.c).
 */
#ifndef MPROF_TESTS_LAUNCHER_STOP_H
#define MPROF_TESTS_LAUNCHER_STOP_H

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The state letter of pid in /proc/PID/stat, or 0. */
static inline char launcher_stop_state_of(pid_t pid)
{
	char path[64], buf[512], *r;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	r = strrchr(buf, ')');
	return r && r[1] == ' ' ? r[2] : 0;
}

static void *launcher_stop_resume_later(void *arg)
{
	struct timespec ts = { 0, 300000000L };

	nanosleep(&ts, NULL);
	kill(*(pid_t *)arg, SIGCONT);
	return NULL;
}

/* Stops the parent (SIGSTOP, until /proc shows it stopped, at most 5 s)
 * and starts a thread, stored in *t, that lets it go on (SIGCONT) 300 ms
 * later.  Returns 0, or -1 (the parent running) when either fails. */
static inline int launcher_stop_300ms(pthread_t *t)
{
	static pid_t launcher;
	struct timespec ms = { 0, 1000000L };

	launcher = getppid();
	if (kill(launcher, SIGSTOP) != 0)
		return -1;
	for (int i = 0; i < 5000 && launcher_stop_state_of(launcher) != 'T'; i++)
		nanosleep(&ms, NULL);
	if (pthread_create(t, NULL, launcher_stop_resume_later, &launcher) != 0) {
		kill(launcher, SIGCONT);
		return -1;
	}
	return 0;
}

#endif
