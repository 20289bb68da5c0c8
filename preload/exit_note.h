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
 * peak, and where the argument strings lie when the image already runs
 * under a seccomp filter (exit_note_keep_arg_bounds).
 */
void exit_note_start(void);

/*
 * Reads where the image's argument and environment strings lie (fields
 * 48-51 of /proc/self/stat), once per image and its fork children, for an
 * end under a seccomp filter, which reads its command line from them
 * instead of opening /proc/self/cmdline.  Called when a filter is known at
 * the start and just before the program installs one (seccomp_watch.c):
 * an unfiltered image never opens the file.  Never allocates; 2 KiB of
 * stack.
 */
void exit_note_keep_arg_bounds(void);

/*
 * The image's own peak RSS in KiB so far: VmHWM (from /proc/self/status,
 * unless a seccomp filter may forbid opening it), else getrusage's peak
 * when that proves it is this image's; 0 when neither can tell.  The exit
 * note takes it, and so does the exec hook (preload/exec_watch.c) just
 * before the image is replaced, since an exec leaves no note.  Never
 * allocates.
 */
uint64_t exit_note_peak_rss_kib(void);

/*
 * Writes the note for an end by a call that runs no exit handler: _exit,
 * _Exit, or an exit_group system call made through syscall() (status as
 * given).  Only where the handler is registered, as exit() would write it;
 * on an alternate signal stack with less than EXIT_NOTE_FULL_STACK_BYTES
 * left (a crash handler's _exit) only the status and time, as the whole
 * note takes some 6 KiB (its names are then the launcher's last look), and
 * with less than EXIT_NOTE_STATUS_STACK_BYTES (1 KiB) nothing, so that the
 * end needs no more stack than without mprof; not on a thread pointer of the program's own (preload/thread_pointer.h).
 * The caller then ends the process.  Never allocates.
 */
void exit_note_before_exit_call(int status);

#endif
