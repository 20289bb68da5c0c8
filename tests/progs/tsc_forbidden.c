/*
 * tsc_forbidden.c - a program that forbids reading the time-stamp counter
 * (prctl PR_SET_TSC, PR_TSC_SIGSEGV: reading it is then a SIGSEGV), by
 * which mprof's recorder times events.  `tsc_forbidden prctl` asks through
 * the C library's prctl, `syscall` through syscall(SYS_prctl), `exec` sets
 * it through prctl and executes itself as `tsc_forbidden child` (the ban
 * holds across execve).  Then, or as `child`: ten 500-byte blocks from
 * live_10ms, each freed 10 ms after its allocation, 30 ms apart; prints
 * "forbidden ok" when the ban was in force, else "allowed ok".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void pause_ms(long ms)
{
	struct timespec nap = { 0, ms * 1000000L };

	nanosleep(&nap, NULL);
}

__attribute__((noinline)) static void *live_10ms(void)
{
	return malloc(500);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int state = 0;

	if (!strcmp(mode, "prctl") || !strcmp(mode, "exec")) {
		if (prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0)
			perror("prctl");
	} else if (!strcmp(mode, "syscall")) {
		if (syscall(SYS_prctl, PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0) != 0)
			perror("syscall prctl");
	}
	if (!strcmp(mode, "exec")) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		perror("execl");
		return 1;
	}
	for (int i = 0; i < 10; i++) {
		void *volatile p = live_10ms();

		pause_ms(10);
		free(p);
		pause_ms(30);
	}
	prctl(PR_GET_TSC, &state, 0, 0, 0);
	printf("%s ok\n", state == PR_TSC_SIGSEGV ? "forbidden" : "allowed");
	return 0;
}
