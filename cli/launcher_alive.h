/*
 * cli/launcher_alive.h - telling the recorders that the launcher lives, in
 * the launcher file of the session directory (trace/session.h).
 */
#ifndef MPROF_CLI_LAUNCHER_ALIVE_H
#define MPROF_CLI_LAUNCHER_ALIVE_H

#include <stdatomic.h>
#include <stdint.h>

/*
 * Makes SESSION_DIR/launcher with this thread's id in its word and registers
 * the word as the thread's robust futex, so that the kernel marks it when
 * the thread ends.  Call from the main thread, which collects, before the
 * program starts.  Returns 0 or a negative errno (the recorders then fall
 * back on kill(pid, 0), which works in the launcher's PID namespace only).
 */
int launcher_alive_start(const char *session_dir);

/* The launcher file's wake word (cli/launcher_wake.h), or NULL without
 * the file. */
_Atomic uint32_t *launcher_alive_wake_word(void);

/* Clears the word: the launcher collects no more, and recorders that wait
 * for room in a ring stop waiting. */
void launcher_alive_stop(void);

/* Whether the launcher of the session directory dir_fd collects: 1 yes,
 * 0 no (the word of its launcher file is cleared), -1 cannot tell (no such
 * file: an older mprof's, or one that could not make it). */
int launcher_alive_read(int dir_fd);

#endif
