/*
 * preload/populate.h - faulting in pages of the process file before the
 * recorder first writes them (preload/populate.c).
 */
#ifndef MPROF_PRELOAD_POPULATE_H
#define MPROF_PRELOAD_POPULATE_H

#include <stddef.h>

/*
 * Gives the file pages behind [addr, addr + bytes) of the process file's
 * mapping (addr page-aligned) their memory now, so that a file system
 * that is full (the session directory's tmpfs, filled by the program or
 * another) is a refusal here rather than SIGBUS in the program at the
 * write.  Returns 0 when the pages are there, or when that cannot be
 * known (a kernel before 5.14, a seccomp filter: the pages then come at
 * the first write, as before); -1 when the file system refused them.
 * Keeps errno.  Never allocates.  preload/mem.c also gives its small
 * anonymous pieces their pages with it (a page filled in the call costs less
 * than a first-touch fault); there a refusal leaves the page to that fault.
 */
int populate_pages(void *addr, size_t bytes);

/* The diagnostic of a refusal (preload_process_disable's text). */
#define POPULATE_FULL_TEXT                                                            \
	"the file system of mprof's session directory is full (no memory for the "  \
	"recorder's rings); recording stopped"

#endif
