/*
 * tests/progs/exec_bad_pointers.c - the C library's exec and spawn calls,
 * and the other calls the recorder wraps, given a path, argument vector,
 * environment or entry that cannot be read (tests/e2e/exec-bad-pointers.sh).
 *
 * With no argument, makes each call of the table below in turn and prints
 * "NAME: ERRNO" (the errno name, or "rc=N" for a call that does not fail),
 * then allocates 7 blocks of 1000 B it never frees and 3 of 500 B it frees,
 * and exits with status 0.  Natively each call fails with EFAULT (or is
 * glibc 2.36's own answer, as posix_spawnp's 0 for a child that then dies
 * of SIGSEGV in the C library's path search): the program goes on.
 *
 * With the argument "crash NAME", makes the one call NAME of the forms the
 * C library itself dies of natively (execvp's file, posix_spawn's argv, a
 * sigaction's action): prints "NAME: survived" if it returns.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* An address no mapping holds (volatile: the compiler must not see it). */
static char *volatile bad_address = (char *)8;
#define BAD bad_address

static char *true_argv[] = { "true", NULL };
/* an environment whose second entry cannot be read */
static char *bad_entry_env[] = { "A=1", NULL, NULL };
/* a path that runs into a page that cannot be read, and an envp whose
 * slots do (set by make_edges) */
static char *edge_path;
static char **edge_env;
static char *edge_env_entry;

static void *volatile kept[7];
static void *volatile freed[3];

static void make_edges(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || mprotect(p + page, (size_t)page, PROT_NONE) != 0) {
		perror("mmap");
		exit(3);
	}
	/* "/bin/tru" with no NUL before the unreadable page */
	edge_path = p + page - 8;
	memcpy(edge_path, "/bin/tru", 8);
	/* two slots at the page's end, the third (its NULL) past it */
	edge_env = (char **)(p + page - 2 * sizeof(char *));
	edge_env[0] = "A=1";
	edge_env[1] = "LD_PRE";
	/* "LD_PRELO" with its rest past the page's end */
	edge_env_entry = p + page - 24;
	memcpy(edge_env_entry, "B=2\0LD_PRELOAD=x", 16);
	memcpy(edge_env_entry + 16, "LD_PRELO", 8);
}

static void say(const char *name, int rc, int err)
{
	if (rc == 0)
		printf("%s: rc=0\n", name);
	else
		printf("%s: %s\n", name, strerrorname_np(err));
	fflush(stdout);
}

/* An exec-family call that returns -1 with errno set. */
#define EXEC_TRY(name, call)                                                   \
	do {                                                                   \
		int rc_;                                                       \
                                                                               \
		errno = 0;                                                     \
		rc_ = (call) == -1 ? -1 : 0;                                   \
		say(name, rc_, errno);                                         \
	} while (0)

/* A posix_spawn-family call: its result, and how a child it made ended. */
static void spawn_say(const char *name, int rc, pid_t pid)
{
	int status;

	if (rc != 0) {
		say(name, -1, rc);
		return;
	}
	if (waitpid(pid, &status, 0) != pid) {
		printf("%s: rc=0, waitpid %s\n", name, strerrorname_np(errno));
	} else if (WIFSIGNALED(status)) {
		printf("%s: rc=0, child signal %d\n", name, WTERMSIG(status));
	} else {
		printf("%s: rc=0, child status %d\n", name, WEXITSTATUS(status));
	}
	fflush(stdout);
}

#define SPAWN_TRY(name, fn, path, argv, envp)                                  \
	do {                                                                   \
		pid_t pid_ = 0;                                                \
		int rc_ = fn(&pid_, path, NULL, NULL, argv, envp);             \
		spawn_say(name, rc_, pid_);                                    \
	} while (0)

static void exec_calls(void)
{
	char **saved = environ;
	char *true_fd_argv[] = { BAD, NULL };
	int fd = open("/bin/true", O_RDONLY | O_CLOEXEC);

	EXEC_TRY("execve path", execve(BAD, true_argv, environ));
	EXEC_TRY("execve path edge", execve(edge_path, true_argv, environ));
	EXEC_TRY("execve argv", execve("/bin/true", (char **)BAD, environ));
	EXEC_TRY("execve envp", execve("/bin/true", true_argv, (char **)BAD));
	EXEC_TRY("execve envp entry", execve("/bin/true", true_argv, bad_entry_env));
	EXEC_TRY("execve envp edge", execve("/bin/true", true_argv, edge_env));
	EXEC_TRY("execve envp entry edge",
		 execve("/bin/true", true_argv, (char *[]){ edge_env_entry, edge_env_entry + 4,
							    edge_env_entry + 16, NULL }));
	EXEC_TRY("execv path", execv(BAD, true_argv));
	EXEC_TRY("execv argv", execv("/bin/true", (char **)BAD));
	environ = (char **)BAD;
	EXEC_TRY("execv environ", execv("/bin/true", true_argv));
	environ = bad_entry_env;
	EXEC_TRY("execl environ entry", execl("/bin/true", "true", (char *)NULL));
	environ = saved;
	EXEC_TRY("execvpe envp", execvpe("/bin/true", true_argv, (char **)BAD));
	EXEC_TRY("execvpe search envp", execvpe("true", true_argv, (char **)BAD));
	EXEC_TRY("execvpe search envp entry", execvpe("true", true_argv, bad_entry_env));
	EXEC_TRY("execvp search argv", execvp("true", (char **)BAD));
	EXEC_TRY("execl path", execl(BAD, "true", (char *)NULL));
	EXEC_TRY("execl arg", execl("/bin/true", "true", BAD, (char *)NULL));
	EXEC_TRY("execle envp", execle("/bin/true", "true", (char *)NULL, (char **)BAD));
	EXEC_TRY("execle envp entry", execle("/bin/true", "true", (char *)NULL, bad_entry_env));
	EXEC_TRY("execlp search arg", execlp("true", "true", BAD, (char *)NULL));
	EXEC_TRY("fexecve argv", fexecve(fd, (char **)BAD, environ));
	EXEC_TRY("fexecve argv0", fexecve(fd, true_fd_argv, environ));
	EXEC_TRY("fexecve envp", fexecve(fd, true_argv, (char **)BAD));
	EXEC_TRY("fexecve envp entry", fexecve(fd, true_argv, bad_entry_env));
	EXEC_TRY("execveat path", execveat(AT_FDCWD, BAD, true_argv, environ, 0));
	EXEC_TRY("execveat envp", execveat(AT_FDCWD, "/bin/true", true_argv, (char **)BAD, 0));
	EXEC_TRY("execveat fd argv0", execveat(fd, "", true_fd_argv, environ, AT_EMPTY_PATH));
	close(fd);
}

static void spawn_calls(void)
{
	SPAWN_TRY("posix_spawn path", posix_spawn, BAD, true_argv, environ);
	SPAWN_TRY("posix_spawn path edge", posix_spawn, edge_path, true_argv, environ);
	SPAWN_TRY("posix_spawn envp", posix_spawn, "/bin/true", true_argv, (char **)BAD);
	SPAWN_TRY("posix_spawn envp entry", posix_spawn, "/bin/true", true_argv, bad_entry_env);
	SPAWN_TRY("posix_spawn envp edge", posix_spawn, "/bin/true", true_argv, edge_env);
	SPAWN_TRY("posix_spawnp file", posix_spawnp, BAD, true_argv, environ);
	SPAWN_TRY("posix_spawnp file edge", posix_spawnp, edge_path, true_argv, environ);
	SPAWN_TRY("posix_spawnp envp", posix_spawnp, "true", true_argv, (char **)BAD);
	SPAWN_TRY("posix_spawnp envp entry", posix_spawnp, "true", true_argv, bad_entry_env);
}

/* The other wrapped calls that take the program's pointers. */
static void other_calls(void)
{
	pid_t pid;
	int rc;

	errno = 0;
	rc = system(BAD);
	printf("system: %s%d %s\n", WIFEXITED(rc) ? "exit " : "status ",
	       WIFEXITED(rc) ? WEXITSTATUS(rc) : rc, strerrorname_np(errno));
	errno = 0;
	printf("popen: %s\n", popen(BAD, "r") ? "a stream" : strerrorname_np(errno));
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(9);
	EXEC_TRY("waitpid status", waitpid(pid, (int *)BAD, 0));
	pid = fork();
	if (pid == 0)
		_exit(9);
	EXEC_TRY("waitid info", waitid(P_PID, (id_t)pid, (siginfo_t *)BAD, WEXITED));
	waitpid(pid, NULL, 0);
	EXEC_TRY("setrlimit", setrlimit(RLIMIT_AS, (struct rlimit *)BAD));
	EXEC_TRY("prlimit", prlimit(0, RLIMIT_AS, (struct rlimit *)BAD, NULL));
}

/* The forms the C library dies of natively. */
static int crash_call(const char *name)
{
	pid_t pid;
	int rc = -2;

	printf("%s: calling\n", name);
	fflush(stdout);
	if (strcmp(name, "execvp-file") == 0)
		rc = execvp(BAD, true_argv);
	else if (strcmp(name, "execlp-file") == 0)
		rc = execlp(BAD, "true", (char *)NULL);
	else if (strcmp(name, "posix_spawn-argv") == 0)
		rc = posix_spawn(&pid, "/bin/true", NULL, NULL, (char **)BAD, environ);
	else if (strcmp(name, "sigaction-act") == 0)
		rc = sigaction(atoi(getenv("BAD_SIG")), (struct sigaction *)BAD, NULL);
	else
		return 2;
	printf("%s: survived (%d)\n", name, rc);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "crash") == 0)
		return crash_call(argv[2]);
	if (argc != 1)
		return 2;
	bad_entry_env[1] = BAD;
	make_edges();
	exec_calls();
	spawn_calls();
	other_calls();
	for (int i = 0; i < 7; i++)
		kept[i] = malloc(1000);
	for (int i = 0; i < 3; i++)
		freed[i] = malloc(500);
	for (int i = 0; i < 3; i++)
		free(freed[i]);
	printf("done\n");
	return 0;
}
