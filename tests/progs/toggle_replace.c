/*
 * toggle_replace.c - run with `mprof run --paused` (or --toggle-signal):
 * after the recorder's start, without starting a thread, it installs a
 * disposition of its own for the toggle signal, in one of the ways a
 * program can, while a toggle signal sent to mprof may arrive.
 *
 * Usage: toggle_replace MODE PREFIX [rt3]
 *   the toggle signal is SIGUSR2, or SIGRTMIN+3 with "rt3".  Writes its pid
 *   to PREFIX.pid, waits (no allocator call) until PREFIX.go1 exists, then
 *   allocates 10 blocks of 100 bytes in before_take() and frees them.  Then
 *   by MODE: "sigaction", "siginfo" (SA_SIGINFO), "signal", "sigset",
 *   "bsd_signal", "sysv_signal" install a handler that counts ("raw":
 *   syscall(SYS_rt_sigaction), x86_64 only); "ignore"
 *   sets SIG_IGN; "default" reads the action (sigaction with no new one)
 *   and sets SIG_DFL.  It creates PREFIX.taken, waits until PREFIX.go2
 *   exists and 2 s more (a signal passed on meanwhile arrives; "default":
 *   until recording stopped, calling probe() every 10 ms), allocates
 *   20 blocks of 200 bytes in after_take() and frees them, and prints
 *   "old OLD, caught N": OLD is the disposition the call reported before
 *   its own ("default", "ignore" or "other"; "default" mode: the read's,
 *   then the set's, comma-separated), N the handler's count.  Exits 3 when
 *   a wait passes 60 s, 4 when a call fails.
 * Facts (tests/e2e/toggle-replaced.sh): with the toggle signal sent to the
 * program before go1 and to mprof after PREFIX.taken, before_take() is
 * recorded and the program's handler never runs (caught 0); its old
 * disposition reads "default", as without mprof.  After a handler or
 * SIG_IGN, recording stays on: after_take() is recorded; after SIG_DFL the
 * toggle stops it: after_take() is not.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "mprof.h"
#include "pid_file.h"

/* glibc declares these only for old standards. */
extern __sighandler_t bsd_signal(int sig, __sighandler_t handler);
extern __sighandler_t sysv_signal(int sig, __sighandler_t handler);

static volatile sig_atomic_t caught;
/* Global and volatile, so that the compiler keeps every malloc and free. */
void *volatile block;

static void own_handler(int sig)
{
	(void)sig;
	caught++;
}

static void own_action(int sig, siginfo_t *info, void *context)
{
	(void)sig;
	(void)info;
	(void)context;
	caught++;
}

__attribute__((noinline)) static void before_take(void)
{
	for (int i = 0; i < 10; i++) {
		block = malloc(100);
		free(block);
	}
}

__attribute__((noinline)) static void after_take(void)
{
	for (int i = 0; i < 20; i++) {
		block = malloc(200);
		free(block);
	}
}

/* An allocator call, which applies a toggle the recorder was asked for. */
__attribute__((noinline)) static void probe(void)
{
	block = malloc(8);
	free(block);
}

/* Waits up to 60 s until prefix.suffix exists (exit 3 then); no allocator
 * call. */
static void wait_file(const char *prefix, const char *suffix)
{
	struct timespec pause = { 0, 10000000 };
	char path[4096];

	snprintf(path, sizeof(path), "%s.%s", prefix, suffix);
	for (int i = 0; access(path, F_OK) != 0; i++) {
		if (i == 6000)
			exit(3);
		nanosleep(&pause, NULL);
	}
}

static const char *disposition(__sighandler_t h)
{
	return h == SIG_DFL ? "default" : h == SIG_IGN ? "ignore" : "other";
}

int main(int argc, char **argv)
{
	struct timespec pause = { 0, 10000000 };
	struct sigaction sa, old;
	__sighandler_t prev = SIG_ERR;
	char path[4096], olds[64];
	const char *mode;
	int sig, fd;

	if (argc < 3)
		return 2;
	mode = argv[1];
	sig = argc > 3 && strcmp(argv[3], "rt3") == 0 ? SIGRTMIN + 3 : SIGUSR2;
	snprintf(path, sizeof(path), "%s.pid", argv[2]);
	write_pid(path);
	wait_file(argv[2], "go1");
	before_take();

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = own_handler;
	if (strcmp(mode, "sigaction") == 0 || strcmp(mode, "siginfo") == 0) {
		if (strcmp(mode, "siginfo") == 0) {
			sa.sa_sigaction = own_action;
			sa.sa_flags = SA_SIGINFO;
		}
		if (sigaction(sig, &sa, &old) != 0)
			return 4;
		/* a SA_SIGINFO action is a handler: "other" */
		prev = (old.sa_flags & SA_SIGINFO) ? own_handler : old.sa_handler;
	} else if (strcmp(mode, "signal") == 0) {
		prev = signal(sig, own_handler);
	} else if (strcmp(mode, "sigset") == 0) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		prev = sigset(sig, own_handler);
#pragma GCC diagnostic pop
	} else if (strcmp(mode, "bsd_signal") == 0) {
		prev = bsd_signal(sig, own_handler);
	} else if (strcmp(mode, "sysv_signal") == 0) {
		prev = sysv_signal(sig, own_handler);
	} else if (strcmp(mode, "raw") == 0) {
		/* the kernel's struct, without SA_RESTORER: a signal that
		 * reached own_handler would end the program with SIGSEGV */
		struct {
			void *handler;
			unsigned long flags;
			void *restorer;
			unsigned long mask;
		} k = { (void *)own_handler, 0, NULL, 0 }, ko;

		if (syscall(SYS_rt_sigaction, sig, &k, &ko, sizeof(k.mask)) != 0)
			return 4;
		prev = (__sighandler_t)ko.handler;
	} else if (strcmp(mode, "ignore") == 0) {
		prev = signal(sig, SIG_IGN);
	} else if (strcmp(mode, "default") == 0) {
		if (sigaction(sig, NULL, &old) != 0)
			return 4;
		prev = signal(sig, SIG_DFL);
	} else {
		return 2;
	}
	if (prev == SIG_ERR)
		return 4;
	if (strcmp(mode, "default") == 0)
		snprintf(olds, sizeof(olds), "%s,%s",
			 (old.sa_flags & SA_SIGINFO) ? "other" : disposition(old.sa_handler),
			 disposition(prev));
	else
		snprintf(olds, sizeof(olds), "%s", disposition(prev));

	snprintf(path, sizeof(path), "%s.taken", argv[2]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || close(fd) != 0)
		return 4;
	wait_file(argv[2], "go2");
	if (strcmp(mode, "default") == 0) {
		/* the toggle sent to mprof stops recording: an allocator call
		 * applies it once it arrived */
		for (int i = 0; mprof_is_running() == 1; i++) {
			if (i == 6000)
				return 3;
			probe();
			nanosleep(&pause, NULL);
		}
	} else {
		for (int i = 0; i < 200; i++)
			nanosleep(&pause, NULL);
	}
	after_take();
	printf("old %s, caught %d\n", olds, (int)caught);
	return 0;
}
