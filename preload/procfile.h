/*
 * preload/procfile.h - creating this process image's process file
 * (trace/session.h) in the session directory.
 */
#ifndef MPROF_PRELOAD_PROCFILE_H
#define MPROF_PRELOAD_PROCFILE_H

#include <stdint.h>

#include "preload/process.h"

/* How the new process came to be. */
struct procfile_origin {
	int is_fork_child;        /* 1: made by fork() in a recorded process */
	uint64_t fork_seq;        /* fork child: the parent's seq at the fork */
	const char *parent_file;  /* fork child: the parent's file name */
};

/*
 * Creates SESSION_DIR/p.PID.SERIAL (PID: proc->view.pid; O_EXCL, O_NOFOLLOW,
 * mode 0600), sizes it for proc->cfg, maps it shared, closes the descriptor
 * and fills the header (state PROC_RUNNING, seq = origin->fork_seq).  On
 * success sets proc->hdr, proc->file_bytes and proc->file_name and returns
 * 0; returns a negative errno otherwise (nothing is left open or mapped; a
 * file already created is unlinked), -ECANCELED when the launcher gave the
 * file up (and removed it) before the header was marked running.  Never
 * allocates.
 */
int procfile_create(struct preload_process *proc, const struct procfile_origin *origin);

/* This image's command line now, quoted (trace/argv_quote.h) and cut to
 * fit out[cap], as the header's command holds it ("" when /proc/self/cmdline
 * cannot be read).  Returns 1 when out holds the whole command line (a
 * non-empty one read to its end and not cut), else 0.  Never allocates. */
int procfile_command(char *out, size_t cap);

/* This image's process name now (/proc/self/comm, the main thread's, without
 * its newline) into out[cap] ("" when it cannot be read).  Never allocates. */
void procfile_comm(char *out, size_t cap);

/* This image's process name now without opening a file: PR_GET_NAME, which
 * names the calling thread, so only on the main thread (whose name
 * /proc/self/comm shows).  Returns 1 when out[cap] holds it; 0 (out empty)
 * on another thread or when prctl fails (a sandbox).  Never allocates. */
int procfile_comm_own(char *out, size_t cap);

/* Appends the decimal digits of v to p; returns the end. */
char *procfile_put_dec(char *p, uint64_t v);

#endif
