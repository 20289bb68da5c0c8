/*
 * cli/analyzer.c - starting the analyzer (mprof-analyze) on behalf of mprof:
 * `mprof report` hands over to it entirely, and `mprof run` runs its
 * symbolize step at the end of a run so the trace keeps the symbols of
 * binaries that may later change or vanish.
 *
 * Owns the argument vectors it builds.  Never writes to stdout during
 * `mprof run` (the analyzer's stdout is pointed at stderr there).
 */
#include "config.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/analyzer.h"
#include "cli/die.h"
#include "cli/paths.h"

int analyzer_available(void)
{
	return access(mprof_path_analyzer(), X_OK) == 0;
}

int analyzer_symbolize(char *const traces[], size_t ntraces, const struct kept_images *kept)
{
	const char *path = mprof_path_analyzer();
	char **argv;
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int status, err;

	if (ntraces == 0)
		return 0;
	if (!analyzer_available()) {
		mprof_warn("the analyzer %s is missing: symbols were not embedded in the trace "
			   "(mprof report will read them from the binaries on disk)", path);
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
	err = posix_spawn_file_actions_init(&actions);
	if (!err) {
		err = posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO);
		if (!err)
			err = posix_spawn(&pid, path, &actions, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&actions);
	}
	free(argv);
	if (err) {
		mprof_warn("cannot start the analyzer: %s; symbols were not embedded in the trace",
			   strerror(err));
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			status = -1;
			break;
		}
	}
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
	/* the user typed 'mprof report', so messages and usage say "mprof" */
	setenv("MPROF_ANALYZE_NAME", "mprof", 1);
	execv(path, args);
	mprof_die(MPROF_EXIT_FAILED, "cannot run the analyzer %s: %s (set MPROF_ANALYZE to "
		  "its location)", path, strerror(errno));
}
