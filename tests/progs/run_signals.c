/*
 * tests/progs/run_signals.c - signals the program and its child send to
 * their own process group and to the program's parent (tests/e2e/run-signals.sh).
 *
 * The program, started in a session of its own (setsid), counts the SIGUSR1
 * and SIGWINCH it catches.  It sends SIGUSR1 to its process group once, its
 * forked child sends SIGUSR1 to the group once (and stays a zombie until
 * the end), and it sends SIGWINCH to its parent.  Without mprof it catches
 * SIGUSR1 twice and SIGWINCH never (its parent is the test's timeout(1),
 * which ignores SIGWINCH); mprof, in the same process group and the program's
 * parent, must pass none of them back.  It then creates READY and waits for
 * SIGRTMIN+2 from the test (through mprof when profiled): a real-time signal
 * is taken after the standard ones, so anything mprof passed back has
 * arrived before.  Output: "usr1 N winch N", exit status 0.
 * Usage: run_signals READY
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1_count, winch_count, end_seen;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		usr1_count++;
	else if (sig == SIGWINCH)
		winch_count++;
	else
		end_seen = 1;
}

/* The one allocation the test looks for: 100 bytes, freed. */
__attribute__((noinline)) static void record_me(void)
{
	char *volatile block = malloc(100);

	free(block);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, old;
	pid_t child;
	int fd;

	if (argc != 2)
		return 2;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGWINCH, &sa, NULL);
	sigaction(SIGRTMIN + 2, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGRTMIN + 2);
	sigprocmask(SIG_BLOCK, &block, &old);

	record_me();
	kill(0, SIGUSR1);
	child = fork();
	if (child == 0) {
		kill(0, SIGUSR1);
		_exit(0);
	}
	kill(getppid(), SIGWINCH);
	/* the child is reaped only at the end: a zombie still names its parent */
	while (usr1_count < 2)
		pause();

	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return 3;
	close(fd);
	while (!end_seen)
		sigsuspend(&old);
	waitpid(child, NULL, 0);
	printf("usr1 %d winch %d\n", (int)usr1_count, (int)winch_count);
	return 0;
}
