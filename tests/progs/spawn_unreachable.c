/*
 * tests/progs/spawn_unreachable.c - starts, through posix_spawn and vfork,
 * programs whose loader will not load mprof's recorder, with an
 * environment that keeps it (tests/e2e/unreachable-spawns.sh).
 *
 * Usage: spawn_unreachable STATIC NAME [SUID].  STATIC is a statically
 * linked program, NAME its file name, found through $PATH; SUID (optional)
 * a set-user-ID program.  In order, each child waited for:
 *   1. posix_spawn(STATIC);  2. posix_spawnp(NAME);
 *   3. vfork, execv(STATIC);  4. vfork, execvp(NAME);
 *   5. posix_spawn("/bin/true"): recorded;
 *   6. vfork, execv("/nonexistent/z"): fails, exit 127;
 *   7. posix_spawn(SUID), when given.
 * stdout: one line of the children's exit statuses, in that order.
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int status_of(pid_t pid)
{
	int status;

	if (pid <= 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int spawned(const char *path, int search)
{
	char *argv[] = { (char *)path, NULL };
	pid_t pid;
	int rc = search ? posix_spawnp(&pid, path, NULL, NULL, argv, environ)
			: posix_spawn(&pid, path, NULL, NULL, argv, environ);

	return rc == 0 ? status_of(pid) : -rc;
}

static int vforked(const char *path, int search)
{
	char *argv[] = { (char *)path, NULL };
	pid_t pid = vfork();

	if (pid == 0) {
		if (search)
			execvp(path, argv);
		else
			execv(path, argv);
		_exit(127);
	}
	return status_of(pid);
}

int main(int argc, char **argv)
{
	int status[7], n = 0;

	if (argc < 3)
		return 2;
	/* one at a time: the order of a call's arguments is unspecified */
	status[n++] = spawned(argv[1], 0);
	status[n++] = spawned(argv[2], 1);
	status[n++] = vforked(argv[1], 0);
	status[n++] = vforked(argv[2], 1);
	status[n++] = spawned("/bin/true", 0);
	status[n++] = vforked("/nonexistent/z", 0);
	if (argc > 3)
		status[n++] = spawned(argv[3], 0);
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? " " : "", status[i]);
	printf("\n");
	return 0;
}
