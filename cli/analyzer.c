/*
 * cli/analyzer.c - starting the analyzer (mprof-analyze) on behalf of mprof:
 * `mprof report` hands over to it entirely, and `mprof run` runs its
 * symbolize step at the end of a run so the trace keeps the symbols of
 * binaries that may later change or vanish.  That analyzer is started while
 * the program runs and waits for its work on a socket, so that the end of
 * a run does not wait for a process to start.
 *
 * Owns the argument vectors it builds.  Never writes to stdout during
 * `mprof run` (the analyzer's stdout is pointed at stderr there).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/analyzer.h"
#include "cli/die.h"
#include "cli/paths.h"
#include "cli/process_limit.h"
#include "cli/self_command.h"
#include "trace/symbolize_request.h"

int analyzer_available(void)
{
	return access(mprof_path_analyzer(), X_OK) == 0;
}

/* The analyzer started early (analyzer_prestart): its pid (0: none) and
 * the launcher's end of its request socket. */
static pid_t early_pid;
static int early_socket = -1;

/* The environment without its LD_PRELOAD entries, for the analyzer: a
 * library the user preloads is meant for the program, and in mprof's own
 * helper it would run (and write on the program's stderr) where the user
 * started no process.  A calloc'd array of environ's strings (free it), or
 * NULL when out of memory. */
static char **analyzer_env(void)
{
	size_t n = 0, kept = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0)
			env[kept++] = environ[i];
	return env;
}

/* Starts the analyzer at path with argv, its stdout on stderr, its stdin
 * /dev/null (not the program's input, which it would hold open), the
 * environment without LD_PRELOAD (analyzer_env), and the termination
 * signals (SIGINT, SIGQUIT, SIGHUP, SIGTERM) blocked from before its exec
 * for its whole life: sent to the process group, they are meant for the
 * program, and the launcher, which outlives them, still wants the symbols.
 * Returns 0 (its pid in *pid) or an errno value. */
static int analyzer_spawn(pid_t *pid, const char *path, char *const argv[], int request_fd,
			  int request_target)
{
	posix_spawn_file_actions_t actions;
	posix_spawnattr_t attr;
	sigset_t mask;
	int err;

	pthread_sigmask(SIG_BLOCK, NULL, &mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGQUIT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	err = posix_spawnattr_init(&attr);
	if (err)
		return err;
	err = posix_spawnattr_setsigmask(&attr, &mask);
	if (!err)
		err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	if (!err)
		err = posix_spawn_file_actions_init(&actions);
	if (!err) {
		err = posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
		if (!err)
			err = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
								O_RDONLY, 0);
		if (!err && request_fd >= 0)
			err = posix_spawn_file_actions_adddup2(&actions, request_fd, request_target);
		if (!err) {
			char **env = analyzer_env();

			err = posix_spawn(pid, path, &actions, &attr, argv, env ? env : environ);
			free(env);
		}
		posix_spawn_file_actions_destroy(&actions);
	}
	posix_spawnattr_destroy(&attr);
	return err;
}

pid_t analyzer_prestart(void)
{
	char fd_arg[16], *argv[5];
	int sv[2], target, err;

	if (early_pid > 0 || !analyzer_available() || process_limit_near() ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return early_pid;
	/* dup2 onto the same number would keep close-on-exec set */
	target = sv[1] == 3 ? 4 : 3;
	snprintf(fd_arg, sizeof(fd_arg), "%d", target);
	argv[0] = (char *)mprof_path_analyzer();
	argv[1] = (char *)"symbolize";
	argv[2] = (char *)"--request-fd";
	argv[3] = fd_arg;
	argv[4] = NULL;
	err = analyzer_spawn(&early_pid, argv[0], argv, sv[1], target);
	close(sv[1]);
	if (err) {
		early_pid = 0;
		close(sv[0]);
		return 0;
	}
	early_socket = sv[0];
	return early_pid;
}

/* Waits for pid; its wait status, or -1. */
static int analyzer_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

/* 0 when the analyzer ended well, else one warning and -1. */
static int analyzer_status_check(int status)
{
	if (status == 0)
		return 0;
	if (status != -1 && WIFSIGNALED(status))
		mprof_warn("embedding symbols failed (the analyzer died of signal %d); "
			   "the trace is still valid", WTERMSIG(status));
	else
		mprof_warn("embedding symbols failed (the analyzer exited with status %d); "
			   "the trace is still valid", status == -1 ? -1 : WEXITSTATUS(status));
	return -1;
}

/* Hands the work to the early analyzer; 0 when it took it (its wait
 * status in *status), -1 when there is none, or it is gone or ended before
 * it took the work (killed with SIGKILL). */
static int analyzer_request(char *const traces[], size_t ntraces, const struct kept_images *kept,
			    int *status)
{
	int fds[KEPT_IMAGES_MAX];
	char *exes[KEPT_IMAGES_MAX];
	size_t nfds = kept ? kept->n : 0;
	pid_t pid = early_pid;
	int rc;

	if (pid <= 0)
		return -1;
	for (size_t i = 0; i < nfds; i++) {
		fds[i] = kept->v[i].fd;
		exes[i] = kept->v[i].exe;
	}
	rc = ntraces ? symbolize_request_send(early_socket, traces, ntraces, fds, exes, nfds) : -1;
	if (rc == 0 && symbolize_request_wait_ack(early_socket) != 1)
		rc = -1;
	close(early_socket);
	early_socket = -1;
	early_pid = 0;
	/* without a request it ends at once, seeing the socket closed */
	*status = analyzer_wait(pid);
	return rc == 0 ? 0 : -1;
}

int analyzer_symbolize(char *const traces[], size_t ntraces, const struct kept_images *kept)
{
	const char *path = mprof_path_analyzer();
	char **argv;
	pid_t pid;
	int status, err;

	if (analyzer_request(traces, ntraces, kept, &status) == 0)
		return analyzer_status_check(status);
	if (ntraces == 0)
		return 0;
	if (!analyzer_available()) {
		mprof_warn("the analyzer %s is missing: symbols were not embedded in the trace "
			   "(%s report will read them from the binaries on disk)", path, self_command());
		return -1;
	}
	argv = calloc(ntraces + 3, sizeof(*argv));
	if (!argv) {
		mprof_warn("out of memory: symbols were not embedded in the trace");
		return -1;
	}
	argv[0] = (char *)path;
	argv[1] = (char *)"symbolize";
	memcpy(argv + 2, traces, ntraces * sizeof(*argv));
	fflush(stderr);
	/* posix_spawn rather than fork: the child shares the launcher's memory
	 * until its exec instead of copying the page tables, many after a run */
	if (kept)
		kept_images_hand_over(kept);
	err = analyzer_spawn(&pid, path, argv, -1, -1);
	free(argv);
	if (err) {
		mprof_warn("cannot start the analyzer: %s; symbols were not embedded in the trace",
			   strerror(err));
		return -1;
	}
	return analyzer_status_check(analyzer_wait(pid));
}

void analyzer_exec(const char *subcommand, int argc, char *const argv[])
{
	const char *path = mprof_path_analyzer();
	char **args = calloc((size_t)argc + 3, sizeof(*args));

	if (!args)
		mprof_die(MPROF_EXIT_FAILED, "out of memory");
	args[0] = (char *)path;
	args[1] = (char *)subcommand;
	for (int i = 0; i < argc; i++)
		args[i + 2] = argv[i];
	fflush(stdout);
	fflush(stderr);
	/* the user typed 'mprof report', so messages and usage say "mprof",
	 * and the commands its hints name are this mprof's */
	setenv("MPROF_ANALYZE_NAME", "mprof", 1);
	setenv("MPROF_ANALYZE_COMMAND", self_command(), 1);
	execv(path, args);
	mprof_die(MPROF_EXIT_FAILED, "cannot run the analyzer %s: %s (set MPROF_ANALYZE to "
		  "its location)", path, strerror(errno));
}
