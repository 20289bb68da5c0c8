/*
 * preload/exit_note.h - noting how the process image ends (exit_note.c).
 */
#ifndef MPROF_PRELOAD_EXIT_NOTE_H
#define MPROF_PRELOAD_EXIT_NOTE_H

#include <stdint.h>

/*
 * Registers the on_exit handler that writes the process file's exit note
 * (status, CLOCK_MONOTONIC time, own peak RSS, the command line and
 * process name when they changed since the start; 0 or empty for what
 * cannot be read).  Call from the library
 * constructor only, once recording: never from an allocator call.  Fork
 * children inherit the handler, and it writes into their own file.
 */
void exit_note_register(void);

/*
 * Reads what the note compares with or needs at exit, when the image's
 * process file is made (at the start, and in a fork child): getrusage's
 * peak and where the argument strings lie.  Opens /proc/self/stat.
 */
void exit_note_start(void);

/*
 * The image's own peak RSS in KiB so far: VmHWM (from /proc/self/status,
 * unless a seccomp filter may forbid opening it), else getrusage's peak
 * when that proves it is this image's; 0 when neither can tell.  The exit
 * note takes it, and so does the exec hook (preload/exec_watch.c) just
 * before the image is replaced, since an exec leaves no note.  Never
 * allocates.
 */
uint64_t exit_note_peak_rss_kib(void);

#endif
