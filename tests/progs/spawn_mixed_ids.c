/*
 * tests/progs/spawn_mixed_ids.c - a process of root's that sets its
 * effective user and group IDs to 65534 (seteuid, setegid: the real ones
 * stay 0) and then starts PROGRAM through posix_spawn and through a vfork
 * child's execv: the kernel runs both in secure-execution mode, in which
 * the loader ignores LD_PRELOAD (tests/e2e/unreachable-spawns.sh).
 *
 * Usage: spawn_mixed_ids PROGRAM.  stdout: "spawned S, vforked V", the
 * children's exit statuses; exit status 1 when the IDs cannot be set.
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

int main(int argc, char **argv)
{
	char *child_argv[] = { argv[1], NULL };
	int spawned = -1, vforked;
	pid_t pid;

	if (argc < 2)
		return 2;
	if (setegid(65534) != 0 || seteuid(65534) != 0) {
		perror("spawn_mixed_ids: seteuid");
		return 1;
	}
	if (posix_spawn(&pid, argv[1], NULL, NULL, child_argv, environ) == 0)
		spawned = status_of(pid);
	pid = vfork();
	if (pid == 0) {
		execv(argv[1], child_argv);
		_exit(127);
	}
	vforked = status_of(pid);
	printf("spawned %d, vforked %d\n", spawned, vforked);
	return 0;
}
