/*
 * cli/signals.h - the launcher's signal handling while the program runs:
 * the signals another process sends to mprof (termination requests,
 * daemons' commands, timers, real-time signals, SIGABRT, the toggle signal)
 * are passed on to the program; the launcher itself keeps running and
 * finalizes the trace.
 */
#ifndef MPROF_CLI_SIGNALS_H
#define MPROF_CLI_SIGNALS_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Blocks the forwarded signals (before fork): SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGALRM, SIGVTALRM, SIGPROF, SIGIO,
 * SIGPWR, SIGSTKFLT, SIGABRT, the real-time signals from SIGRTMIN and
 * toggle_signal (0: none), and stores the previous mask, which
 * the child restores before it executes the program.  Called once. */
void signals_block(int toggle_signal, sigset_t *old_mask);

/* Installs the forwarding handlers for the program pid (0: none), ignores
 * SIGPIPE and SIGXFSZ in the launcher, sets SIGCHLD to its default, then
 * restores old_mask. */
void signals_forward_start(pid_t pid, const sigset_t *old_mask);

/* Whether the toggle signal was sent to mprof since the last call (several
 * count once).  The handler does not pass it on: the launcher's loop does
 * once the program catches it, as before its recorder installed the
 * handler the signal's default action would end the program. */
bool signals_toggle_take(void);

/* Whether a toggle signal came that signals_toggle_take has not taken. */
bool signals_toggle_pending(void);

/* Stops forwarding (the program was reaped: its pid may be reused). */
void signals_forward_stop(void);

/*
 * Ends the launcher by signal sig, as the program it ran ended, so that
 * whoever started mprof sees the same wait status as without it (a shell's
 * Ctrl-C handling and a parent's WIFSIGNALED depend on it): stdio flushed,
 * no core dump of the launcher, sig's default action, unblocked, raised.
 * Returns only if sig did not end the process (it cannot: a stop signal or
 * one whose default is to ignore); the caller then exits with 128 + sig.
 * (Valgrind and GNU timeout do the same.)
 */
void signals_end_by(int sig);

#endif
