/*
 * preload/diag.h - recorder diagnostics: what the shim could not do, told
 * to the launcher (header flags and text) and kept in the trace (DIAG
 * records).  The shim never prints: the target's descriptors are its own.
 */
#ifndef MPROF_PRELOAD_DIAG_H
#define MPROF_PRELOAD_DIAG_H

#include "trace/format.h" /* enum trace_diag_code */

/* Sets the flag 1 << code in the process header and makes text its
 * diag_text, except that a note (TRACE_DIAG_INFO) leaves the text of any
 * other code in place.  Safe from any thread; no-op without a process
 * file. */
void diag_note(unsigned code, const char *text);

/* diag_note, plus an EXT_DIAG record (u code, string text) in the meta
 * stream (preload/meta.h).  Returns 0, or -1 when the record could not be
 * written. */
int diag_report(unsigned code, const char *text);

#endif
