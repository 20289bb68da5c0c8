/*
 * preload/announce.h - the first records of a process image: who it is,
 * which modules it has, and what the recorder could not do.
 */
#ifndef MPROF_PRELOAD_ANNOUNCE_H
#define MPROF_PRELOAD_ANNOUNCE_H

/*
 * Writes, into the meta stream (preload/meta.h, started already), an
 * EXT_PROCESS record (pid, ppid, exe, command line), the EXT_MODULES record
 * of the current epoch, and an EXT_DIAG record for each of foreign_text (the
 * program's malloc is not the C library's, given with diagnostic code
 * foreign_code; NULL: none) and a missing unwinder (have_unwinder == 0).
 */
void preload_announce(const char *foreign_text, unsigned foreign_code, int have_unwinder);

/* Makes preload_announce (and a fork child's) also write an EXT_DIAG record
 * of code (TRACE_DIAG_FOREIGN_NEW: not recorded; TRACE_DIAG_INFO: recorded
 * through the shim's wrappers) with text (C++ operator new is another
 * allocator's own: preload/init.c); text must outlive the process image. */
void preload_announce_foreign_new(const char *text, unsigned code);

/* The same for a fork child's new file, with the diagnostics the image's
 * start gave (foreign_text stays the caller's: it must outlive the
 * process image). */
void preload_announce_fork_child(void);

#endif
