/*
 * preload/rlimit.h - the wrappers of setrlimit, setrlimit64, prlimit and
 * prlimit64 (preload/rlimit.c): a program that lowers its RLIMIT_AS gets
 * the recorder's spare address space back.
 */
#ifndef MPROF_PRELOAD_RLIMIT_H
#define MPROF_PRELOAD_RLIMIT_H

/* Looks the next definitions up; called by the initializing thread, before
 * a vfork child could need them. */
void rlimit_resolve(void);

/*
 * Under a finite RLIMIT_AS (read now): closes the memory reservation,
 * shrinks the nested heap's region and unmaps the rings of free thread
 * slots past a sixteenth of the limit,
 * noting in the trace what was given back.  Nothing in a vfork child.
 */
void rlimit_give_back(void);

#endif
