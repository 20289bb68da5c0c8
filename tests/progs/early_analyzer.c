/*
 * early_analyzer.c - a program that meets the analyzer `mprof run` starts
 * while it runs, for its symbolize step (tests/e2e/early-analyzer.sh).
 *
 * Allocates 6 blocks of 2345 bytes in early_alloc, never freed; then waits
 * (up to 30 s) until the launcher (MPROF_LAUNCHER_PID) has a child named
 * mprof-analyze, prints "helper PID" and, by MODE:
 *   plain            exits
 *   deleted          deletes its own file first
 *   killed           kills the helper with SIGKILL first, and waits until
 *                    it is gone
 *   interrupt        sends SIGINT to its process group (as a terminal's ^C
 *                    does: the launcher, itself, the helper), catches it,
 *                    prints "helper alive" or "helper gone" and exits
 *   terminate        as interrupt, with SIGTERM (as timeout(1), or a
 *                    script's `kill 0`, sends it)
 *   wait FILE        waits (up to 60 s) until FILE exists, then exits
 *   stopped          stops the helper with SIGSTOP first, and waits until
 *                    it is stopped
 *   limited          one that is not to come: waits for it 5 s at most,
 *                    prints "helper none" when none came, and exits
 * Prints "MODE done" and exits with status 0; status 3 when no helper came
 * (but in limited mode).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void *volatile early_sink;

__attribute__((noinline)) void early_alloc(void)
{
	for (int i = 0; i < 6; i++)
		early_sink = malloc(2345);
}

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&t, NULL);
}

/* The pid of a living child of launcher named mprof-analyze, or 0: not a
 * zombie, which one killed stays until the launcher reaps it at the end. */
static long helper_find(long launcher)
{
	struct dirent *e;
	long found = 0;
	DIR *d = opendir("/proc");

	while (d && !found && (e = readdir(d)) != NULL) {
		char path[300], line[600], *close_paren;
		long pid = strtol(e->d_name, NULL, 10), ppid = 0;
		char state = 'Z';
		FILE *f;

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) && (close_paren = strrchr(line, ')')) &&
		    sscanf(close_paren + 2, "%c %ld", &state, &ppid) == 2 && ppid == launcher &&
		    state != 'Z' && state != 'X' && strstr(line, "(mprof-analyze)"))
			found = pid;
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

/* Whether process pid is stopped (state T). */
static bool helper_stopped(long pid)
{
	char path[64], line[600], *close_paren;
	bool stopped = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f) && (close_paren = strrchr(line, ')')))
		stopped = close_paren[1] == ' ' && close_paren[2] == 'T';
	fclose(f);
	return stopped;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "plain";
	const char *launcher_env = getenv("MPROF_LAUNCHER_PID");
	long launcher = launcher_env ? strtol(launcher_env, NULL, 10) : 0, helper = 0;

	bool limited = strcmp(mode, "limited") == 0;

	early_alloc();
	for (int i = 0; i < (limited ? 500 : 3000) && !(helper = helper_find(launcher)); i++)
		pause_ms(10);
	if (!helper && limited) {
		printf("helper none\n%s done\n", mode);
		return 0;
	}
	if (!helper) {
		fprintf(stderr, "early_analyzer: no helper came\n");
		return 3;
	}
	printf("helper %ld\n", helper);
	fflush(stdout);
	if (strcmp(mode, "deleted") == 0) {
		unlink(argv[0]);
	} else if (strcmp(mode, "killed") == 0) {
		kill((pid_t)helper, SIGKILL);
		for (int i = 0; i < 3000 && helper_find(launcher) == helper; i++)
			pause_ms(10);
	} else if (strcmp(mode, "stopped") == 0) {
		kill((pid_t)helper, SIGSTOP);
		for (int i = 0; i < 3000 && !helper_stopped(helper); i++)
			pause_ms(10);
	} else if (strcmp(mode, "interrupt") == 0 || strcmp(mode, "terminate") == 0) {
		int sig = mode[0] == 'i' ? SIGINT : SIGTERM;

		signal(sig, on_interrupt);
		kill(0, sig);
		for (int i = 0; i < 3000 && !interrupted; i++)
			pause_ms(10);
		pause_ms(100); /* time for a helper that took the signal to die */
		printf("helper %s\n", helper_find(launcher) == helper ? "alive" : "gone");
	} else if (strcmp(mode, "wait") == 0 && argc > 2) {
		for (int i = 0; i < 6000 && access(argv[2], F_OK) != 0; i++)
			pause_ms(10);
	}
	printf("%s done\n", mode);
	return 0;
}
