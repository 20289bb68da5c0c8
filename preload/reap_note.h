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

struct session_reaps;

/* One wrapped call in progress, as reap_note_enter counted it. */
struct reap_wait {
	struct session_reaps *table; /* the image's reap table; NULL: it
	                              * records nothing */
	int waiter;                  /* the waiter entry taken, or -1: the call
	                              * is counted in the table's waiting */
	uint32_t tid;                /* the id the entry holds */
};

/*
 * For the wait family and the calls that reap a child inside the C library
 * (preload/reap_call.c): reap_note_enter counts a call in progress in the
 * image's reap table (the launcher waits for its entry) into *w;
 * reap_note_call writes a call entry (trace/session.h) for a call begun at
 * start_ns (CLOCK_MONOTONIC) whose child ended with wait status status;
 * reap_note_leave ends the count.  A thread that ends inside the call
 * (pthread_cancel) never calls reap_note_leave: its waiter entry names a
 * thread that is gone, which the launcher does not wait for.  None
 * allocates, locks, or changes errno; all are safe in a signal handler.
 */
void reap_note_enter(struct reap_wait *w);
void reap_note_call(struct session_reaps *t, uint64_t start_ns, int status);
void reap_note_leave(const struct reap_wait *w);

#endif
