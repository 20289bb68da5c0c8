/*
 * cli/kept_images.h - descriptors of programs that were deleted, replaced
 * or never had a path (a memfd) while a recorded process ran them, kept for
 * the symbolize step at the end of `mprof run`.
 */
#ifndef MPROF_CLI_KEPT_IMAGES_H
#define MPROF_CLI_KEPT_IMAGES_H

#include <stdbool.h>
#include <stddef.h>

/* At most this many programs are kept (one descriptor each). */
#define KEPT_IMAGES_MAX 256

/* The environment variable through which the analyzer's symbolize step
 * learns the kept files: paths separated by ':' (/proc/self/fd/N). */
#define KEPT_IMAGES_ENV "MPROF_KEPT_IMAGES"

struct kept_images {
	int fds[KEPT_IMAGES_MAX]; /* owned, close-on-exec */
	size_t n;
};

/*
 * Looks at the program that process pid runs, exe as its recorder named it
 * at its start: when /proc/PID/exe says that file was deleted (or replaced:
 * the kernel names the old one "PATH (deleted)", as it does a memfd) and
 * pid still runs exe, opens it through /proc/PID/exe and keeps the
 * descriptor.  Returns true when the question is settled (kept, or it
 * cannot be: the table is full, the open failed, pid runs another program
 * now), false when there is nothing to keep yet (the file is still there;
 * ask again later).
 */
bool kept_images_look(struct kept_images *k, unsigned pid, const char *exe);

/*
 * Prepares the kept descriptors for an exec of the analyzer in a child of
 * fork: clears their close-on-exec flag and sets KEPT_IMAGES_ENV to their
 * /proc/self/fd paths.  Call it in the child only; async-signal-safe
 * except for setenv (the launcher forks from its one thread).
 */
void kept_images_hand_over(const struct kept_images *k);

/* Closes every kept descriptor. */
void kept_images_close(struct kept_images *k);

#endif
