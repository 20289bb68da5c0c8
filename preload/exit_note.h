/*
 * preload/exit_note.h - noting how the process image ends (exit_note.c).
 */
#ifndef MPROF_PRELOAD_EXIT_NOTE_H
#define MPROF_PRELOAD_EXIT_NOTE_H

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

#endif
