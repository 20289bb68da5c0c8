/*
 * tests/progs/raw_exec_exit.c - a process image that ends by a system call
 * made through syscall(), not by its C library function
 * (tests/e2e/raw-exec-exit.sh).
 *
 * Each mode first allocates a block of 1000 bytes it never frees and one
 * of 500 bytes it frees, then renames itself "rawend" (PR_SET_NAME), then:
 *   exec: syscall(SYS_execve, "/bin/sh", {"sh", "-c", "exit 3"}, {NULL}):
 *         the shell runs with an empty environment, so unrecorded, and the
 *         process exits with status 3;
 *   execat: the same by syscall(SYS_execveat, AT_FDCWD, ...);
 *   failexec: syscall(SYS_execve, "/nonexistent/z", ...) fails; prints
 *         "raw_exec_exit: ENOENT yes" when its errno is ENOENT (as without
 *         mprof), then exits by exit(4);
 *   badexec: syscall(SYS_execve, ...) with a path, an envp and an envp
 *         entry the kernel cannot read, and syscall(SYS_execveat, ...) with
 *         a path it cannot read, each failing with EFAULT; prints
 *         "raw_exec_exit: EFAULT 4" when all four did (as without mprof),
 *         then exits by exit(4);
 *   fdexec: the shell of exec by syscall(SYS_execveat, fd, "", ...,
 *         AT_EMPTY_PATH) on a descriptor of /bin/sh (fexecve's way);
 *   padexec: the exec of exec with the environment kept, after 70
 *         entries "PADn=x" (the recorder reads envp in batches of 32):
 *         the shell is recorded;
 *   exit: syscall(SYS_exit_group, 5): status 5 with no exit handler run;
 *   ownexec: the execve of exec by a system call instruction of its own
 *         (as Go's runtime makes them), of "sh -c 'sleep 3; exit 3'": the
 *         shell runs 3 s, long enough for mprof's launcher to look at it;
 *         it waits 300 ms first: a process that started within its
 *         process file's clock tick is known as the file's by its maps
 *         (cli/pid_guard.c), which must be read before the exec;
 *   ownexit: exit_group(6) by a system call instruction of its own.
 * The last two need x86-64 or AArch64 (elsewhere: status 77).
 * Anything else: status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

static void *volatile kept;

/* System call nr with three arguments, made here, not by the C library. */
static long own_syscall3(long nr, long a0, long a1, long a2)
{
#if defined(__x86_64__)
	long rc;

	__asm__ volatile("syscall" : "=a"(rc) : "0"(nr), "D"(a0), "S"(a1), "d"(a2)
			 : "rcx", "r11", "memory");
	return rc;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	register long x2 __asm__("x2") = a2;

	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
#else
	(void)nr, (void)a0, (void)a1, (void)a2;
	exit(77);
#endif
}

int main(int argc, char **argv)
{
	char *sh_argv[] = { "sh", "-c", "exit 3", NULL };
	char *no_env[] = { NULL };
	void *freed;
	long rc;

	if (argc != 2)
		return 2;
	kept = malloc(1000);
	freed = malloc(500);
	free(freed);
	prctl(PR_SET_NAME, "rawend", 0, 0, 0);
	if (strcmp(argv[1], "exec") == 0) {
		syscall(SYS_execve, "/bin/sh", sh_argv, no_env);
		return 1;
	}
	if (strcmp(argv[1], "execat") == 0) {
		syscall(SYS_execveat, AT_FDCWD, "/bin/sh", sh_argv, no_env, 0);
		return 1;
	}
	if (strcmp(argv[1], "failexec") == 0) {
		rc = syscall(SYS_execve, "/nonexistent/z", sh_argv, no_env);
		printf("raw_exec_exit: ENOENT %s\n", rc == -1 && errno == ENOENT ? "yes" : "no");
		fflush(stdout);
		exit(4);
	}
	if (strcmp(argv[1], "badexec") == 0) {
		char *const bad = (char *)8;
		char *bad_env[] = { bad, NULL };
		int efaults = 0;

		efaults += syscall(SYS_execve, bad, sh_argv, no_env) == -1 && errno == EFAULT;
		efaults += syscall(SYS_execve, "/bin/sh", sh_argv, (char **)bad) == -1 &&
			   errno == EFAULT;
		efaults += syscall(SYS_execve, "/bin/sh", sh_argv, bad_env) == -1 && errno == EFAULT;
		efaults += syscall(SYS_execveat, AT_FDCWD, bad, sh_argv, no_env, 0) == -1 &&
			   errno == EFAULT;
		printf("raw_exec_exit: EFAULT %d\n", efaults);
		fflush(stdout);
		exit(4);
	}
	if (strcmp(argv[1], "fdexec") == 0) {
		int fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);

		syscall(SYS_execveat, fd, "", sh_argv, no_env, AT_EMPTY_PATH);
		return 1;
	}
	if (strcmp(argv[1], "padexec") == 0) {
		static char pads[70][16];
		char *env[70 + 256];
		int n = 0;

		for (; n < 70; n++) {
			snprintf(pads[n], sizeof(pads[n]), "PAD%d=x", n);
			env[n] = pads[n];
		}
		for (char **e = environ; *e && n < 70 + 255; e++)
			env[n++] = *e;
		env[n] = NULL;
		syscall(SYS_execve, "/bin/sh", sh_argv, env);
		return 1;
	}
	if (strcmp(argv[1], "exit") == 0)
		syscall(SYS_exit_group, 5);
	if (strcmp(argv[1], "ownexec") == 0) {
		char *slow_argv[] = { "sh", "-c", "sleep 3; exit 3", NULL };

		usleep(300000);
		own_syscall3(SYS_execve, (long)"/bin/sh", (long)slow_argv, (long)no_env);
		return 1;
	}
	if (strcmp(argv[1], "ownexit") == 0)
		own_syscall3(SYS_exit_group, 6, 0, 0);
	return 2;
}
