/*
 * cli/kept_images.h - descriptors of the programs that recorded processes
 * ran, kept for the symbolize step at the end of `mprof run`: a program
 * deleted or replaced during the run, or after its process ended (`go
 * run`'s binary, a test's scratch folder), or that never had a path (a
 * memfd run by fexecve) is read from there.
 */
#ifndef MPROF_CLI_KEPT_IMAGES_H
#define MPROF_CLI_KEPT_IMAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* At most this many programs are kept (one descriptor each), of which at
 * most KEPT_IMAGES_PRESENT_MAX whose file was still at its path. */
#define KEPT_IMAGES_MAX 64
#define KEPT_IMAGES_PRESENT_MAX 48

/* The environment variable through which the analyzer's symbolize step
 * learns the kept files: one line per file, "PATH\tEXE", PATH its
 * /proc/self/fd path and EXE the program as its recorder named it. */
#define KEPT_IMAGES_ENV "MPROF_KEPT_IMAGES"

struct kept_image {
	int fd;         /* owned, close-on-exec */
	dev_t dev;      /* the file's identity */
	ino_t ino;
	char *exe;      /* as the recorder named it; owned */
};

struct kept_images {
	struct kept_image v[KEPT_IMAGES_MAX];
	size_t n, present;
};

/*
 * Opens the program that process pid runs through /proc/PID/exe, when it
 * is still exe (the program its recorder named at its start, or that name
 * with the kernel's " (deleted)" after it), and keeps the descriptor
 * unless the same file is kept already or the table is full.  Once per
 * process is enough: a program that cannot be read now (the process ended,
 * or is not ours to read) cannot be later either.
 */
void kept_images_look(struct kept_images *k, unsigned pid, const char *exe);

/*
 * Prepares the kept descriptors for the analyzer's start: clears their
 * close-on-exec flag and sets KEPT_IMAGES_ENV in the launcher's environment.
 * Call it just before that start, when the launcher starts nothing else.
 */
void kept_images_hand_over(const struct kept_images *k);

/* Closes every kept descriptor and frees the names. */
void kept_images_close(struct kept_images *k);

#endif
