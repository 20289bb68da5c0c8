/*
 * cli/spawn.h - finding the program in PATH and starting it in two steps:
 * fork (the child waits), then release (the child sets up the recording
 * environment and executes the program).  Between the two the launcher
 * knows the program's pid and creates the trace file named after it.
 */
#ifndef MPROF_CLI_SPAWN_H
#define MPROF_CLI_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Resolves name as execvp does: a name with a '/' is used as is, otherwise
 * each PATH entry is tried (default "/bin:/usr/bin").  Stores the path to
 * execute in out.  Returns 0, -ENOENT (not found), -EACCES (found but not
 * executable, or a directory), or another negative errno.
 */
int program_resolve(const char *name, char *out, size_t size);

/* Recording environment for the program; NULL session_dir: none at all. */
struct spawn_env {
	const char *session_dir;   /* MPROF_SESSION */
	const char *preload_path;  /* prepended to LD_PRELOAD */
	unsigned max_frames;       /* MPROF_MAX_FRAMES */
	bool no_children;          /* MPROF_NO_CHILDREN=1 */
	uint64_t sample_rate_bytes; /* MPROF_SAMPLE_RATE; 0: exact mode (unset) */
	bool have_seed;            /* --sample-seed given: MPROF_SAMPLE_SEED set */
	uint64_t sample_seed;      /* ... to this; else each image draws its own */
	bool paused;               /* MPROF_PAUSED=1 */
	int toggle_signal;         /* MPROF_TOGGLE_SIGNAL; 0: unset */
};

struct spawn {
	pid_t pid;     /* the program's pid, or 0 */
	int go_fd;     /* write end: one byte releases the child, closing it aborts */
	int err_fd;    /* read end: the child's exec errno, or EOF when exec worked */
};

/*
 * Forks a child that waits for spawn_release, then executes path with argv
 * in env, with signal mask child_mask.  Returns 0 or a negative errno.
 */
int spawn_fork(struct spawn *sp, const char *path, char *const argv[],
	       const struct spawn_env *env, const sigset_t *child_mask);

/* Lets the child execute the program.  Returns 0 when the exec worked, or
 * the (positive) errno with which it failed (the child has then exited and
 * has been reaped). */
int spawn_release(struct spawn *sp);

/* Makes the waiting child exit without running anything, and reaps it. */
void spawn_abort(struct spawn *sp);

/* Executes path in this process, without the recorder (no return on
 * success).  Returns the exec errno. */
int spawn_exec_plain(const char *path, char *const argv[]);

#endif
