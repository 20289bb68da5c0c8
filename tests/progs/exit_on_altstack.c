/*
 * exit_on_altstack.c - a signal handler on an alternate signal stack ends
 * the process, as crash handlers do: _exit, or a raw exit_group system
 * call, on a stack of a given size, after the program renamed itself.
 *
 * Usage: exit_on_altstack STACK_BYTES exit|raw
 * Expected facts: 7 blocks of 1024 B from main and 3 of 100 B from the
 * handler, none freed (live at exit); process name "renamed-alt"
 * (PR_SET_NAME) before the signal; exit status 6 (_exit) or 5 (raw);
 * stdout "exit_on_altstack STACK_BYTES MODE\n", flushed before the signal.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int raw_exit;
static void *volatile sink;

static void on_usr1(int sig)
{
	(void)sig;
	for (int i = 0; i < 3; i++)
		sink = malloc(100);
	if (raw_exit)
		syscall(SYS_exit_group, 5);
	_exit(6);
}

int main(int argc, char **argv)
{
	stack_t ss;
	struct sigaction sa;

	if (argc < 3)
		return 2;
	raw_exit = strcmp(argv[2], "raw") == 0;
	ss.ss_size = (size_t)atol(argv[1]);
	ss.ss_sp = malloc(ss.ss_size);
	ss.ss_flags = 0;
	if (!ss.ss_sp || sigaltstack(&ss, NULL) != 0)
		return 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	for (int i = 0; i < 7; i++)
		sink = malloc(1024);
	prctl(PR_SET_NAME, "renamed-alt", 0, 0, 0);
	printf("exit_on_altstack %s %s\n", argv[1], argv[2]);
	fflush(stdout);
	raise(SIGUSR1);
	return 0;
}
