/*
 * preload/stack_scrub.h - zeroes the thread's stack just below the caller,
 * after one of the recorder's rarely taken paths returned.
 *
 * A conservative collector (libgc) scans the thread's stack from deep
 * inside its own frames: words a deeper call left there (callee-saved
 * registers holding the program's pointers) keep blocks alive and
 * blacklist heap pages.  The hot path leaves the same words at every call,
 * as glibc's malloc does, but the paths taken when the ring is full, a lap
 * ends or the launcher is woken depend on the launcher's timing, so their
 * words made the collector's heap differ from run to run.  Must not call
 * malloc; costs a 1 KiB memset.
 */
#ifndef MPROF_PRELOAD_STACK_SCRUB_H
#define MPROF_PRELOAD_STACK_SCRUB_H

/* Bytes zeroed below the caller's frame: more than the ring's slow paths
 * use (their deepest words were found 600 bytes below the program's frame). */
#define PRELOAD_STACK_SCRUB_BYTES 1024u

/* Zeroes PRELOAD_STACK_SCRUB_BYTES of stack below the caller's frame. */
void preload_stack_scrub(void);

#endif
