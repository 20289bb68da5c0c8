/*
 * preload/reap_note.h - the wait family, wrapped to note how the children
 * this image reaps ended (preload/reap_note.c; the process file's reap
 * table, trace/session.h).
 */
#ifndef MPROF_PRELOAD_REAP_NOTE_H
#define MPROF_PRELOAD_REAP_NOTE_H

/* Looks up the C library's definitions behind the wrappers; called once
 * by the initializing thread, before a signal handler or a vfork child
 * could need them. */
void reap_note_resolve(void);

#endif
