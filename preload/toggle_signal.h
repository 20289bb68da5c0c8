/*
 * preload/toggle_signal.h - the signal that toggles recording, and what the
 * program's own calls that set its disposition do to it.
 */
#ifndef MPROF_PRELOAD_TOGGLE_SIGNAL_H
#define MPROF_PRELOAD_TOGGLE_SIGNAL_H

#include <signal.h>
#include <stdatomic.h>

#define TOGGLE_SIGNAL_REFUSED (-1) /* not a signal that may toggle */
#define TOGGLE_SIGNAL_TAKEN (-2)   /* the program handles or ignores it */

/* The signal whose handler toggle_signal_install put in place, 0 before (or
 * without) one; the signal wrappers' one test on their way to the C
 * library (preload/signal_wrap.c). */
extern _Atomic int toggle_signal_ours;

/* A call of the program that may set the toggle signal's disposition, as
 * toggle_signal_before found it. */
struct toggle_signal_call {
	int keep;       /* 1: mprof's handler stays: a sigaction sets ours,
			 * a signal()-like call is skipped */
	int flags;      /* with keep: the flags of the program's SIG_DFL */
	struct sigaction ours; /* with keep: mprof's handler, the program's mask */
	int masked;     /* 1: saved is the thread's mask to put back */
	sigset_t saved; /* the mask before toggle_signal_before blocked sig */
};

/* Makes signal sig toggle recording (a handler with SA_RESTART), when sig
 * may toggle (trace/session.h session_toggle_signal_ok) and its disposition
 * is still the default.  Returns 0, TOGGLE_SIGNAL_REFUSED for any other sig,
 * or TOGGLE_SIGNAL_TAKEN when the program already handles or ignores sig;
 * then the disposition is left as it was. */
int toggle_signal_install(int sig);

/* The C library's sigaction(2), behind the shim's own; the recorder's own
 * calls go here.  Returns its result (-1 and errno when there is none). */
int toggle_signal_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/*
 * Before the program's call that sets signal sig to act (NULL: it only
 * reads the action): when sig is the toggle signal and mprof's handler is
 * its disposition, either keeps it (act is SIG_DFL, which it stands for, as
 * at the start: call->keep, and the caller reports SIG_DFL as the old
 * action without the real call), or hands the signal to the program: sets
 * TRACE_DIAG_TOGGLE_TAKEN in the process file (the launcher then passes no
 * toggle on), waits until a toggle the launcher is passing on meanwhile is
 * sent (up to 2 s), blocks sig in this thread and takes the toggles that
 * are already pending as toggles.  A call in a vfork child (another pid
 * than the recorded process's, its dispositions its own) is left alone.
 * The caller then makes the real call and toggle_signal_after.
 * Async-signal-safe; no lock, no allocation.
 */
void toggle_signal_before(int sig, const struct sigaction *act, struct toggle_signal_call *call);

/* After a kept SIG_DFL (call->keep) took effect: later reads of the old
 * action give the program's flags (with_action: it was set by sigaction,
 * with call->ours in its place), or none (a signal()-like call, skipped).
 * Async-signal-safe. */
void toggle_signal_kept(const struct toggle_signal_call *call, int with_action);

/* After the real call that toggle_signal_before prepared: puts the
 * thread's signal mask back.  Async-signal-safe. */
void toggle_signal_after(const struct toggle_signal_call *call);

/*
 * Before an exec by this image itself, once exec_self is set in its process
 * file (sequentially consistent, so that the launcher, which sets
 * toggle_passing before it reads exec_self, either sees it and sends
 * nothing or is seen passing): waits until a toggle the launcher is
 * passing on meanwhile is sent (up to 2 s), and takes the toggles pending
 * for the thread or the process as toggles of this image, with the signal
 * blocked in this thread, then puts its mask back.  A pending signal
 * would survive the exec and end the new image before its recorder
 * installs the handler.  No-op without mprof's handler.  Keeps errno;
 * async-signal-safe; no lock, no allocation.
 */
void toggle_signal_exec(void);

/* The old disposition handler as the program would see it without mprof:
 * SIG_DFL for mprof's handler, else handler. */
__sighandler_t toggle_signal_seen(__sighandler_t handler);

/* The same for an old action filled by sigaction: mprof's handler reads as
 * SIG_DFL, with the flags and mask of the SIG_DFL the program set through
 * sigaction (toggle_signal_kept), else none.  old may be NULL. */
void toggle_signal_seen_action(struct sigaction *old);

/* The same for an old action the rt_sigaction system call filled (the
 * kernel's struct: handler, flags, restorer, then mask_bytes of mask, as
 * the call's size argument said).  old may be NULL. */
void toggle_signal_seen_kernel(unsigned long *old, unsigned long mask_bytes);

/* When the handler toggle_signal_install put in place is no longer the
 * signal's (the program installed its own, seen as it did it or, for a
 * system call of its own such as Go's runtime makes, now), says so once in
 * a DIAG record.  One sigaction call; no lock, no allocation. */
void toggle_signal_check(void);

#endif
