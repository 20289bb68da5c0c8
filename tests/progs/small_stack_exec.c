/*
 * small_stack_exec.c - exec and spawn calls made on a thread with a small
 * stack, as a program whose threads get pthread_attr_setstacksize's
 * smallest sizes does.  "small_stack_exec KIB MODE" starts a thread on a
 * stack of KIB KiB of its own (pthread_attr_setstack, so that no TLS or
 * guard shares it) that makes, by MODE:
 *   spawn  - posix_spawn of `sh -c "exit 4"`, waited for; then exits 4
 *   execve - execve of `sh -c "exit 3"`
 *   execvp - the same by execvp, which looks "sh" up in $PATH
 *   vfork  - vfork, the child execve of `sh -c "exit 3"`; then exits with
 *            the child's status
 *   fails  - execve, execvp, posix_spawn and posix_spawnp of a missing
 *            file, then exits 2
 *   execpath PATH  - execve of PATH (no arguments)
 *   spawnpath PATH - posix_spawn of PATH, waited for; then exits with its
 *                    status (tests/e2e/small-stack-foreign-exec.sh)
 * A stack overflow ends the process by SIGSEGV.  "small_stack_exec
 * measure" prints the most stack bytes each of spawn and fails used, from
 * a painted 1 MiB stack (a figure for bench/HISTORY.md).
 *
 * Facts: see tests/e2e/small-stack-exec.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *mode;
static const char *path; /* execpath's and spawnpath's */

static int spawn_sh(const char *code)
{
	char *argv[] = { "sh", "-c", (char *)code, NULL };
	pid_t pid;
	int status;

	if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) != 0)
		return -1;
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static void exec_missing(void)
{
	char *argv[] = { "missing", NULL };
	pid_t pid;

	execve("/nonexistent/small-stack-exec", argv, environ);
	execvp("missing-small-stack-exec", argv);
	posix_spawn(&pid, "/nonexistent/small-stack-exec", NULL, NULL, argv, environ);
	posix_spawnp(&pid, "missing-small-stack-exec", NULL, NULL, argv, environ);
}

static void *run(void *arg)
{
	char *argv[] = { "sh", "-c", "exit 3", NULL };
	int status;
	pid_t pid;

	(void)arg;
	if (strcmp(mode, "execvp") == 0) {
		execvp("sh", argv);
		_exit(100);
	}
	if (strcmp(mode, "spawn") == 0)
		_exit(spawn_sh("exit 4"));
	if (strcmp(mode, "execve") == 0) {
		execve("/bin/sh", argv, environ);
		_exit(100);
	}
	if (strcmp(mode, "vfork") == 0) {
		pid = vfork();
		if (pid == 0) {
			execve("/bin/sh", argv, environ);
			_exit(100);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			_exit(101);
		_exit(WEXITSTATUS(status));
	}
	if (strcmp(mode, "fails") == 0) {
		exec_missing();
		_exit(2);
	}
	if (strcmp(mode, "execpath") == 0 && path) {
		char *pargv[] = { (char *)path, NULL };

		execve(path, pargv, environ);
		_exit(100);
	}
	if (strcmp(mode, "spawnpath") == 0 && path) {
		char *pargv[] = { (char *)path, NULL };

		if (posix_spawn(&pid, path, NULL, NULL, pargv, environ) != 0 ||
		    waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			_exit(101);
		_exit(WEXITSTATUS(status));
	}
	_exit(102);
}

static int start(void *stack, size_t size, void *(*fn)(void *))
{
	pthread_attr_t attr;
	pthread_t t;

	if (pthread_attr_init(&attr) != 0 || pthread_attr_setstack(&attr, stack, size) != 0 ||
	    pthread_create(&t, &attr, fn, NULL) != 0)
		return -1;
	return pthread_join(t, NULL);
}

enum { MEASURE_BYTES = 1024 * 1024, PAINT = 0xa5 };
static char *measure_stack;

/* The bytes of the painted stack written below its top. */
static size_t used(void)
{
	size_t i = 0;

	while (i < MEASURE_BYTES && (unsigned char)measure_stack[i] == PAINT)
		i++;
	return MEASURE_BYTES - i;
}

static void *measure_spawn(void *arg)
{
	(void)arg;
	spawn_sh("exit 0");
	return NULL;
}

static void *measure_fails(void *arg)
{
	(void)arg;
	exec_missing();
	return NULL;
}

static int measure(void)
{
	static void *(*const fns[])(void *) = { measure_spawn, measure_fails };
	static const char *const names[] = { "spawn", "fails" };

	measure_stack = mmap(NULL, MEASURE_BYTES, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (measure_stack == MAP_FAILED)
		return 1;
	for (int i = 0; i < 2; i++) {
		memset(measure_stack, PAINT, MEASURE_BYTES);
		if (start(measure_stack, MEASURE_BYTES, fns[i]) != 0)
			return 1;
		printf("%s: %zu bytes of stack\n", names[i], used());
	}
	return 0;
}

int main(int argc, char **argv)
{
	size_t size;
	void *stack;

	if (argc == 2 && strcmp(argv[1], "measure") == 0)
		return measure();
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: small_stack_exec KIB spawn|execve|execvp|vfork|fails\n"
				"       small_stack_exec KIB execpath|spawnpath PATH\n");
		return 1;
	}
	path = argc == 4 ? argv[3] : NULL;
	size = strtoul(argv[1], NULL, 10) * 1024;
	mode = argv[2];
	stack = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED)
		return 1;
	/* a guard page below: an overflow faults instead of writing on */
	if (mmap((char *)stack - 4096, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
		 -1, 0) == MAP_FAILED && errno != EEXIST)
		return 1;
	if (start(stack, size, run) != 0)
		return 1;
	return 103;
}
