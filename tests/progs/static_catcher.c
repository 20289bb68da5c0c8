/*
 * static_catcher.c - a statically linked program, which mprof's recorder
 * never starts in, that catches SIGUSR2 itself (tests/e2e/exec-toggles.sh).
 *
 * static_catcher DIR: installs a SIGUSR2 handler that counts, writes
 * DIR/static_ready, waits until DIR/stop exists (up to 60 s: then status
 * 3), prints "static caught N" with N the signals it caught and ends with
 * status 0.  Facts: a toggle sent to mprof meanwhile is never passed on to
 * it, so N is 0.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t caught;

static void on_usr2(int sig)
{
	(void)sig;
	caught++;
}

int main(int argc, char **argv)
{
	struct timespec ms = { 0, 1000000 };
	struct sigaction sa;
	char path[4096];
	int fd;

	if (argc != 2)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR2, &sa, NULL) != 0)
		return 2;
	snprintf(path, sizeof(path), "%s/static_ready", argv[1]);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || write(fd, "1\n", 2) != 2)
		return 2;
	close(fd);
	snprintf(path, sizeof(path), "%s/stop", argv[1]);
	for (int i = 0; i < 60000; i++) {
		if (access(path, F_OK) == 0) {
			printf("static caught %d\n", (int)caught);
			return 0;
		}
		nanosleep(&ms, NULL);
	}
	return 3;
}
