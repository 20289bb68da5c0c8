/*
 * preload/reap_note.h - the wait family, wrapped to note how the children
 * this image reaps ended (preload/reap_note.c; the process file's reap
 * table, trace/session.h).
 */
#ifndef MPROF_PRELOAD_REAP_NOTE_H
#define MPROF_PRELOAD_REAP_NOTE_H

#include <stdint.h>

/* Looks up the C library's definitions behind the wrappers; called once
 * by the initializing thread, before a signal handler or a vfork child
 * could need them. */
void reap_note_resolve(void);

/* The same for system, popen and pclose (preload/reap_call.c). */
void reap_call_resolve(void);

/* For the calls that reap a child inside the C library (preload/
 * reap_call.c): reap_note_enter counts a call in progress in the image's
 * reap table (the launcher waits for its entry) and returns the table, or
 * NULL when the image records nothing; reap_note_call writes a call entry
 * (trace/session.h) for a call begun at start_ns (CLOCK_MONOTONIC) whose
 * child ended with wait status status; reap_note_leave ends the count.
 * None allocates, locks, or changes errno. */
struct session_reaps;
struct session_reaps *reap_note_enter(void);
void reap_note_call(struct session_reaps *t, uint64_t start_ns, int status);
void reap_note_leave(struct session_reaps *t);

#endif
