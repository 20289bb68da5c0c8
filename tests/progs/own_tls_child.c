/*
 * own_tls_child.c - children that clone() starts with a thread pointer of
 * their own (CLONE_SETTLS on a zeroed block, CLONE_VM | CLONE_VFORK), as
 * Chromium's sandbox does to chroot (sandbox/linux/services/credentials.cc,
 * ChrootToSafeEmptyDir), each calling one function that the recorder wraps
 * and that the C library makes a plain system call of.  Such a child has
 * no C library thread control block: errno is not where __errno_location()
 * would find it, while the C library's wrappers write it at its offset
 * from the thread pointer, into the child's block.  Each line: the call,
 * then how its child ended, what the call returned (1 for a mapping's
 * address) and the errno found in the child's block when not 0.
 *
 * "own_tls_child zero" and "own_tls_child unmapped" start the children on
 * a thread pointer of 0 and of an unmapped page instead: the C library's
 * wrappers then fault where they write errno (a call that fails dies of
 * SIGSEGV), and the calls that succeed must succeed under the recorder
 * too.  "own_tls_child zero-novfork" does what zero does without
 * CLONE_VFORK: the parent runs on while its child does.  "own_tls_child
 * header" starts them on a zeroed block that carries the C library's
 * header (its address at offsets 0 and 16, as glibc's tcbhead_t has it),
 * which the recorder takes for one of the C library's, and makes the exec
 * and spawn calls only: errno in the block must be what the C library
 * leaves there.  An optional last argument names the one call to make.
 *
 * Facts: see tests/e2e/own-tls-child.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

enum { STACK_BYTES = 64 * 1024 };

static long result; /* shared with the children: CLONE_VM */
static struct rlimit core_limit;
static ptrdiff_t errno_offset; /* errno's offset from the thread pointer */

/* No local array or struct in child(): the stack protector's canary is
 * read at an offset from the thread pointer, which may lead nowhere. */
static struct sigaction old;

static int child(void *arg)
{
	const char *call = arg;

	memset(&old, 0, sizeof(old));
	void *p;

	if (strcmp(call, "syscall") == 0) {
		result = syscall(SYS_chdir, "/");
	} else if (strcmp(call, "syscall-fails") == 0) {
		result = syscall(SYS_chdir, "/nonexistent/own-tls-child");
	} else if (strcmp(call, "prctl") == 0) {
		result = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);
	} else if (strcmp(call, "prctl-fails") == 0) {
		result = prctl(-1, 0, 0, 0, 0);
	} else if (strcmp(call, "sigaction") == 0) {
		result = sigaction(SIGUSR1, NULL, &old);
	} else if (strcmp(call, "sigaction-fails") == 0) {
		result = sigaction(SIGKILL, &old, NULL);
	} else if (strcmp(call, "signal") == 0) {
		result = (long)signal(SIGUSR2, SIG_IGN);
	} else if (strcmp(call, "setrlimit") == 0) {
		result = setrlimit(RLIMIT_CORE, &core_limit);
	} else if (strcmp(call, "setrlimit-fails") == 0) {
		result = setrlimit(999, &core_limit);
	} else if (strcmp(call, "prlimit") == 0) {
		result = prlimit(0, RLIMIT_CORE, NULL, &core_limit);
	} else if (strcmp(call, "mmap") == 0) {
		p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		result = p != MAP_FAILED;
		if (p != MAP_FAILED)
			munmap(p, 4096);
	} else if (strcmp(call, "mmap-fails") == 0) {
		result = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED;
	} else if (strcmp(call, "waitpid") == 0) {
		result = waitpid(-1, NULL, WNOHANG);
	} else if (strcmp(call, "execve-fails") == 0) {
		char *argv[] = { "missing", NULL };
		result = execve("/nonexistent/own-tls-child", argv, environ);
	} else if (strcmp(call, "execve") == 0) {
		char *argv[] = { "sh", "-c", "exit 5", NULL };
		result = execve("/bin/sh", argv, environ);
	} else if (strcmp(call, "posix_spawn") == 0) {
		char *argv[] = { "sh", "-c", "exit 4", NULL };
		pid_t pid;
		result = posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ);
		if (result == 0 && waitpid(pid, NULL, 0) != pid)
			result = -1;
	} else if (strcmp(call, "posix_spawn-fails") == 0) {
		char *argv[] = { "missing", NULL };
		pid_t pid;
		result = posix_spawn(&pid, "/nonexistent/own-tls-child", NULL, NULL, argv, environ);
	} else if (strcmp(call, "_Exit") == 0) {
		_Exit(6);
	}
	_exit(7);
}

/* The thread pointer the children start on: a zeroed block of their own,
 * 0, an unmapped page, or a zeroed block with the C library's header. */
enum tp_kind { TP_BLOCK, TP_ZERO, TP_UNMAPPED, TP_ZERO_NO_VFORK, TP_HEADER };

static void run(const char *call, enum tp_kind kind)
{
	_Alignas(16) static char stack[STACK_BYTES];
	_Alignas(64) static char tls[STACK_BYTES];
	int status;
	pid_t pid;

	/* where the C library's wrappers put errno in the child */
	int *child_errno = (int *)(tls + sizeof(tls) / 2 + errno_offset);
	void *tp = tls + sizeof(tls) / 2;

	result = -99;
	memset(tls, 0, sizeof(tls));
	if (kind == TP_HEADER) {
		((void **)tp)[0] = tp; /* tcbhead_t's tcb */
		((void **)tp)[2] = tp; /* and self */
	}
	if (kind == TP_ZERO || kind == TP_ZERO_NO_VFORK) {
		tp = NULL;
	} else if (kind == TP_UNMAPPED) {
		tp = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (tp == MAP_FAILED || munmap(tp, 4096) != 0) {
			perror("mmap");
			return;
		}
	}
	pid = clone(child, stack + sizeof(stack),
		    CLONE_VM | CLONE_FS | (kind == TP_ZERO_NO_VFORK ? 0 : CLONE_VFORK) |
			    CLONE_SETTLS | SIGCHLD,
		    (void *)call, NULL, tp, NULL);
	if (pid < 0) {
		perror("clone");
		return;
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("waitpid");
		return;
	}
	if (WIFSIGNALED(status))
		printf("%s: signal %d", call, WTERMSIG(status));
	else
		printf("%s: exit %d, returned %ld", call, WEXITSTATUS(status), result);
	if ((kind == TP_BLOCK || kind == TP_HEADER) && *child_errno)
		printf(", errno %d", *child_errno);
	printf("\n");
}

int main(int argc, char **argv)
{
	static const char *const calls[] = { "syscall", "syscall-fails", "prctl", "prctl-fails",
					     "sigaction", "sigaction-fails", "signal", "setrlimit",
					     "setrlimit-fails", "prlimit", "mmap", "mmap-fails", "waitpid",
					     "execve-fails", "execve", "_Exit", "_exit" };
	static const char *const header_calls[] = { "execve-fails", "execve", "posix_spawn",
						    "posix_spawn-fails" };
	enum tp_kind kind = TP_BLOCK;

	errno_offset = (char *)&errno - (char *)__builtin_thread_pointer();
	getrlimit(RLIMIT_CORE, &core_limit);
	if (argc > 1 && strcmp(argv[1], "zero") == 0)
		kind = TP_ZERO;
	else if (argc > 1 && strcmp(argv[1], "unmapped") == 0)
		kind = TP_UNMAPPED;
	else if (argc > 1 && strcmp(argv[1], "zero-novfork") == 0)
		kind = TP_ZERO_NO_VFORK;
	else if (argc > 1 && strcmp(argv[1], "header") == 0)
		kind = TP_HEADER;
	if (kind != TP_BLOCK) {
		argc--;
		argv++;
	}
	if (kind == TP_HEADER) {
		for (size_t i = 0; i < sizeof(header_calls) / sizeof(header_calls[0]); i++)
			if (argc < 2 || strcmp(argv[1], header_calls[i]) == 0)
				run(header_calls[i], kind);
		return 0;
	}
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (argc < 2 || strcmp(argv[1], calls[i]) == 0)
			run(calls[i], kind);
	return 0;
}
