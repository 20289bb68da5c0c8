/*
 * signal_safe_altstack.c - a signal handler on a small alternate signal
 * stack calls one async-signal-safe function that the recorder wraps, as
 * crash handlers and supervisors do: the call must work wherever it works
 * without the recorder.
 *
 * Usage: signal_safe_altstack CALL STACK_BYTES   run the case once
 *        signal_safe_altstack probe CALL         print the smallest stack
 *                                                (16-byte steps) on which
 *                                                the case works, run in
 *                                                children (native only)
 * CALLs: _exit _Exit fork execve execv execl execle fexecve wait waitpid
 * wait3 wait4 waitid sigaction signal.
 * Expected facts, for every CALL: stdout "CALL done\n" and exit status 40
 * (_exit and _Exit: no output, exit status 41 and 42; the exec calls run this program again as
 * "signal_safe_altstack exec-target CALL", which prints the line and exits
 * 40).  A fork child prints "fork child\n" first and exits 7; the wait
 * calls reap a child that exited 5.  The handler does nothing but the
 * call; all printing is done on the main stack.  The stack lies just
 * above an inaccessible page, so that passing its bottom faults.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define STATUS_DONE 40

static const char *call;
static char self_path[4096];
static char *exec_argv[4];
static int self_fd = -1;
static volatile pid_t child_pid;
static volatile pid_t got_pid;
static volatile int got_status = -1;
static volatile int got_rc = -2;
static volatile int got_errno;

static void on_usr2(int sig)
{
	(void)sig;
}

/* The handler's buffers: static, so that its own frame is a few words. */
static siginfo_t info;
static struct sigaction act;

static void on_usr1(int sig)
{
	int st = -1;

	(void)sig;
	if (strcmp(call, "_exit") == 0) {
		_exit(41);
	} else if (strcmp(call, "_Exit") == 0) {
		_Exit(42);
	} else if (strcmp(call, "fork") == 0) {
		got_pid = fork();
	} else if (strcmp(call, "execve") == 0) {
		got_rc = execve(self_path, exec_argv, environ);
	} else if (strcmp(call, "execv") == 0) {
		got_rc = execv(self_path, exec_argv);
	} else if (strcmp(call, "execl") == 0) {
		got_rc = execl(self_path, exec_argv[0], exec_argv[1], exec_argv[2], (char *)NULL);
	} else if (strcmp(call, "execle") == 0) {
		got_rc = execle(self_path, exec_argv[0], exec_argv[1], exec_argv[2], (char *)NULL,
				environ);
	} else if (strcmp(call, "fexecve") == 0) {
		got_rc = fexecve(self_fd, exec_argv, environ);
	} else if (strcmp(call, "wait") == 0) {
		got_pid = wait(&st);
	} else if (strcmp(call, "waitpid") == 0) {
		got_pid = waitpid(child_pid, &st, 0);
	} else if (strcmp(call, "wait3") == 0) {
		got_pid = wait3(&st, 0, NULL);
	} else if (strcmp(call, "wait4") == 0) {
		got_pid = wait4(child_pid, &st, 0, NULL);
	} else if (strcmp(call, "waitid") == 0) {
		info.si_pid = 0;
		got_rc = waitid(P_PID, (id_t)child_pid, &info, WEXITED);
		got_pid = info.si_pid;
		st = info.si_status << 8;
	} else if (strcmp(call, "sigaction") == 0) {
		memset(&act, 0, sizeof(act));
		act.sa_handler = on_usr2;
		got_rc = sigaction(SIGUSR2, &act, NULL);
	} else if (strcmp(call, "signal") == 0) {
		got_rc = signal(SIGUSR2, on_usr2) == SIG_ERR ? -1 : 0;
	}
	got_status = st;
	got_errno = errno;
}

/* The outcome after the handler returned: 40 when the call did what it
 * does without a recorder. */
static int check_outcome(void)
{
	int st;

	if (strcmp(call, "fork") == 0) {
		if (got_pid == 0) {
			printf("fork child\n");
			fflush(stdout);
			_exit(7);
		}
		if (got_pid < 0 || waitpid(got_pid, &st, 0) != got_pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 7)
			return 10;
	} else if (strncmp(call, "exec", 4) == 0 || strcmp(call, "fexecve") == 0) {
		fprintf(stderr, "%s returned %d (%s)\n", call, got_rc, strerror(got_errno));
		return 11;
	} else if (strncmp(call, "wait", 4) == 0) {
		if (got_pid != child_pid || !WIFEXITED(got_status) || WEXITSTATUS(got_status) != 5)
			return 12;
	} else if (got_rc != 0) {
		return 13;
	}
	printf("%s done\n", call);
	return STATUS_DONE;
}

static int expected_status(const char *c)
{
	if (strcmp(c, "_exit") == 0)
		return 41;
	if (strcmp(c, "_Exit") == 0)
		return 42;
	return STATUS_DONE;
}

static int run_case(const char *c, size_t stack_bytes)
{
	stack_t ss;
	struct sigaction sa;
	size_t page;
	char *map;

	call = c;
	/* the stack above an inaccessible page: what passes its bottom faults
	 * at once instead of writing over the memory below */
	page = (size_t)sysconf(_SC_PAGESIZE);
	map = mmap(NULL, page + stack_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) != 0) {
		perror("mmap");
		return 3;
	}
	ss.ss_size = stack_bytes;
	ss.ss_sp = map + page;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) != 0) {
		perror("sigaltstack");
		return 3;
	}
	exec_argv[0] = "signal_safe_altstack";
	exec_argv[1] = "exec-target";
	exec_argv[2] = (char *)c;
	exec_argv[3] = NULL;
	self_fd = open(self_path, O_RDONLY | O_CLOEXEC);
	if (strncmp(c, "wait", 4) == 0) {
		child_pid = fork();
		if (child_pid == 0)
			_exit(5);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	fflush(stdout);
	raise(SIGUSR1);
	return check_outcome();
}

/* Whether the case works on stack_bytes, in a child with its output
 * discarded. */
static int probe_works(const char *c, size_t stack_bytes)
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		exit(run_case(c, stack_bytes));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == expected_status(c);
}

/* The smallest size, in 16-byte steps, on which the case works: a binary
 * search between a size far too small for any signal frame and 64 KiB. */
static int probe(const char *c)
{
	size_t lo = 256, hi = 65536; /* lo fails, hi works */

	if (!probe_works(c, hi))
		return 4;
	while (hi - lo > 16) {
		size_t mid = (lo + hi) / 2 & ~(size_t)15;

		if (probe_works(c, mid))
			hi = mid;
		else
			lo = mid;
	}
	printf("%zu\n", hi);
	return 0;
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc < 3)
		return 2;
	if (strcmp(argv[1], "exec-target") == 0) {
		printf("%s done\n", argv[2]);
		return STATUS_DONE;
	}
	n = readlink("/proc/self/exe", self_path, sizeof(self_path) - 1);
	if (n <= 0)
		return 2;
	self_path[n] = '\0';
	if (strcmp(argv[1], "probe") == 0)
		return probe(argv[2]);
	return run_case(argv[1], (size_t)atol(argv[2]));
}
