/*
 * cli/session_dir.h - the run's session directory, where the shim of each
 * process image creates its process file (trace/session.h).
 */
#ifndef MPROF_CLI_SESSION_DIR_H
#define MPROF_CLI_SESSION_DIR_H

#include <stddef.h>

/*
 * Creates a private (0700) directory /dev/shm/mprof-PID-XXXXXX (PID: this
 * launcher's), or under $TMPDIR or /tmp when /dev/shm is not usable or has
 * little room, and stores its absolute path in out; stale directories of
 * launchers that died are removed on the way.  Returns 0 or a negative
 * errno (of the last attempt).
 */
int session_dir_create(char *out, size_t size);

/* Deletes every file in dir, then dir itself.  Returns 0 or a negative errno. */
int session_dir_remove(const char *dir);

#endif
