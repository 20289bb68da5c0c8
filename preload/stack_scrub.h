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
 * words made the collector's heap differ from run to run.  So do those of
 * a stack capture (a call site's first call or sample), which reach KiBs
 * below the allocator's entry where the hot path's reach 170-310 bytes.
 * Must not call malloc; costs a read of 1 KiB, or of the resident pages of
 * 8 KiB (and a mincore call when they are not known resident), and a store
 * for each word that is not zero.
 */
#ifndef MPROF_PRELOAD_STACK_SCRUB_H
#define MPROF_PRELOAD_STACK_SCRUB_H

#include <stdint.h>

/* Bytes zeroed below the caller's frame: more than the ring's slow paths
 * use (their deepest words were found 600 bytes below the program's frame). */
#define PRELOAD_STACK_SCRUB_BYTES 1024u

/* Bytes zeroed below the entry point's frame after a stack capture: more
 * than it uses of the program's stack (at most 5.4 KiB below the
 * allocator's entry, a fork child's first; 2.5 KiB at a new site:
 * tests/progs/stack_residue.c). */
#define PRELOAD_STACK_SCRUB_DEEP_BYTES 8192u

/* Zeroes the words of PRELOAD_STACK_SCRUB_BYTES of stack below the
 * caller's frame that are not zero. */
void preload_stack_scrub(void);

/*
 * A run of pages [lo, hi) (page-aligned; empty when lo == hi) of one
 * thread's own stack that mincore found resident while the process's
 * count of stack_scrub_forget calls was epoch.  A resident stack page
 * stays so until the program drops or unmaps it, which the count tells;
 * a new thread's is all zero.  Owned by the thread's state.
 */
struct stack_scrub_known {
	uintptr_t lo;
	uintptr_t hi;
	unsigned epoch;
};

/* The same for the pages of PRELOAD_STACK_SCRUB_DEEP_BYTES below the
 * caller's frame that are resident (a page never touched holds nothing):
 * those in known are, the others mincore is asked about, and known learns
 * its answer.  The caller checks that they are the thread's own stack. */
void preload_stack_scrub_deep(struct stack_scrub_known *known);

/* Says that the program may have dropped or unmapped pages of a thread's
 * stack (madvise, munmap, mremap, a fixed mmap: preload/drop_watch.h):
 * every thread's known run is forgotten.  Called after such a call, so
 * that a run learnt while it ran is forgotten too; async-signal-safe. */
void stack_scrub_forget(void);

/* Makes every scrub store zeros without reading the words first: under a
 * Valgrind tool, whose memcheck takes each test of a word the program left
 * undefined for an error of the program's (256 of them from two scrubs at
 * the recorder's start). */
void preload_stack_scrub_blind(void);

#endif
