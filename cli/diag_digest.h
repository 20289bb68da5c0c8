/*
 * cli/diag_digest.h - the launcher's diagnostics of single processes, each
 * distinct text printed once: a build that runs a thousand programs with the
 * same note (a static executable, an own malloc) gets one line with a count
 * of processes, not a thousand lines on the program's stderr.
 */
#ifndef MPROF_CLI_DIAG_DIGEST_H
#define MPROF_CLI_DIAG_DIGEST_H

#include <stdbool.h>

/*
 * Takes one diagnostic of one process and holds it until diag_digest_flush:
 * who names the process (e.g. "process 12: ", "" for the program mprof
 * started), fmt and its arguments give the text.  warning: printed as
 * mprof_warn prints (also with -q), else as mprof_note.  Past
 * DIAG_DIGEST_MAX distinct texts a new one is printed at once.  Copies
 * what it keeps; on out-of-memory it prints at once.
 */
void diag_digest_add(bool warning, const char *who, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The mark in a text of diag_digest_add_at where its process is named. */
#define DIAG_DIGEST_WHO "\001"

/*
 * Like diag_digest_add, for a text that names its process inside it ("1
 * program started by process 12 (sh) is not recorded: ..."): the text of
 * fmt holds DIAG_DIGEST_WHO once, where who goes ("process 12") when one
 * process gave it, with tail after the text (what differs in each process,
 * as a file name; "" for none).  Given by n > 1 processes it is printed
 * once, "a process" in who's place, without a tail, with " (in n
 * processes)" after it.
 */
void diag_digest_add_at(bool warning, const char *who, const char *tail, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * Prints the texts held, in the order they were first given: a text given
 * once as "WHO TEXT", as it came; one given n > 1 times as
 * "TEXT (in n processes)" (diag_digest_add_at's as it says).  Frees them; the digest can be used again.
 */
void diag_digest_flush(void);

/* Most distinct texts held. */
#define DIAG_DIGEST_MAX 256

#endif
