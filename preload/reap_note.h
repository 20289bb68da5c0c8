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

/* Calls reap_note_leave(*t): the cleanup of a REAP_NOTE_SCOPE variable. */
void reap_note_scope_end(struct session_reaps **t);

/* Declares a table variable whose count ends (reap_note_leave) when its
 * scope ends, by a return or by a thread cancellation unwinding through
 * it: the recorder is built with -fexceptions, so the unwinder runs the
 * cleanup, and a return pays only the call.  A longjmp out of a signal
 * handler skips it, as it skips the C library's cleanup handlers. */
#define REAP_NOTE_SCOPE \
	struct session_reaps *__attribute__((cleanup(reap_note_scope_end)))

#endif
