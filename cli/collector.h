/*
 * cli/collector.h - the launcher's collector: while the program runs it
 * finds each process file in the session directory, drains every thread
 * slot's ring into EVENTS chunks of that process's trace, and when the
 * program has ended it finalizes every trace with an END chunk.
 */
#ifndef MPROF_CLI_COLLECTOR_H
#define MPROF_CLI_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cli/kept_images.h"
#include "cli/trace_files.h"

/* When the program has ended (and the processes it started just before
 * have started their recorders), the run's processes still running are
 * given this long to end by themselves, in ms: some 3 times the longest
 * such end seen under load (bench/HISTORY.md). */
#define COLLECTOR_ENDING_WAIT_MS 500

/* Past that wait, the run goes on waiting while one of those processes is
 * runnable or in a disk wait (state R or D), up to this long in all, in ms:
 * on a loaded host a process woken to end (its pipe closed) may not have
 * had the processor within the wait above.  A sleeping daemon is not
 * waited for past COLLECTOR_ENDING_WAIT_MS. */
#define COLLECTOR_ENDING_BUSY_MS 5000

/* The wait above in ms, or the testing aid MPROF_TEST_ENDING_WAIT_MS
 * (1 .. 60000, mprof-run(1)) in its place; never fails. */
unsigned collector_ending_wait_ms(void);

struct collector_config {
	const char *session_dir;      /* absolute path of the session directory */
	pid_t root_pid;               /* the program (the launcher's child) */
	/* Starts the launcher's helper, another child (the analyzer of the
	 * symbolize step), once the program's recorder has set up, when the
	 * launcher is idle; returns its pid or 0.  NULL: none. */
	pid_t (*helper_start)(void);
	/* Called once when the program has ended (been reaped), before the
	 * launcher waits for the rest of the run.  NULL: none. */
	void (*program_ended)(void);
	struct trace_file *root_trace; /* created, file header written; the
	                               * collector writes and closes it */
	const char *trace_base;       /* other processes get trace_base.PID */
	const char *command;          /* the program's argv joined by spaces */
	const char *program;          /* the program as named by the user */
	unsigned max_frames;
	bool no_children;             /* only the program records (--no-children) */
	uint64_t sample_rate_bytes;   /* --sample-rate; 0: exact mode */
	bool paused;                  /* --paused: recording starts stopped */
	int toggle_signal;            /* passed on to the program once it
	                               * catches it (cli/signals.h); 0: none */
	const char *recorder_path;    /* the recorder library as the program maps
	                               * it (resolved), or NULL */
	uint64_t start_unix_ns;       /* CLOCK_REALTIME when mprof started it */
	uint64_t start_mono_ns;       /* CLOCK_MONOTONIC at the same moment */
};

/* What the launcher knows of one trace's process when it has finalized it
 * (nothing read back from the trace): for the table of processes at the end
 * of a run (cli/run_table.h). */
struct collector_trace {
	unsigned pid;
	char *command;          /* its name (trace/proc_name.h): its command line
	                         * as argv_quote.h quotes it, the one at its end
	                         * when the program renamed itself; or NULL;
	                         * owned */
	uint64_t allocations;   /* ALLOC and REALLOC records drained, weighted:
	                         * what its report counts when no chunk was lost */
	uint64_t samples;       /* those records themselves (the samples of a
	                         * sampled run; in an exact one, = allocations) */
	long peak_rss_kib;      /* as in its END chunk; 0: unknown */
	bool peak_rss_sampled;  /* read while it ran: at least this */
	bool has_status;        /* it ended through exit() or was the program */
	int wait_status;
	const char *process_state; /* "ended", "exec" or "running" (static) */
};

struct collector_result {
	int wait_status;     /* the program's status from wait4 */
	bool root_seen;      /* the program's process file appeared */
	char **traces;       /* traces kept, owned; the root's first if root_seen */
	struct collector_trace *figures; /* one per traces[i], owned; NULL when
	                      * out of memory */
	size_t ntraces;
	/* The run's processes (not the program's own pid) whose traces end
	 * with them running: not stopped, still running when the wait for them
	 * to end (COLLECTOR_ENDING_WAIT_MS, longer while one was runnable:
	 * ending_waited_ms) was over; stopped (SIGSTOP, a tracer), not waited
	 * for.  Each with the first one's pid (0: unknown) and name
	 * (proc_name.h; owned, NULL when unknown). */
	size_t still_running;
	unsigned ending_waited_ms; /* how long that wait lasted, in ms */
	unsigned running_pid;
	char *running_name;
	size_t still_stopped;
	unsigned stopped_pid;
	char *stopped_name;
	size_t write_errors;  /* traces whose writing failed part way */
	int notify_fd;        /* the inotify instance, owned, or -1: closed by
	                       * collector_result_free (see collector_run) */
	struct kept_images kept; /* programs deleted or replaced while they ran,
	                       * for the symbolize step; closed by
	                       * collector_result_free */
};

/*
 * Collects until the program (cfg->root_pid) has ended, then finalizes.
 * Prints the recorder's diagnostics as "mprof:" lines (unless -q).  The
 * root trace is discarded (deleted) when no process file of the program
 * ever appeared.  Returns 0, or a negative errno when the session directory
 * cannot be read (the program has still been waited for).
 *
 * The inotify instance's watch is removed as soon as the program has been
 * reaped, but the instance itself is handed over in res->notify_fd, not
 * closed: closing it waits for the kernel's fsnotify mark reaper (an SRCU
 * grace period), which took 12-15 ms in 6 runs out of 10 here when done
 * right after the program ended, against nothing measurable once the
 * symbolize step has run.
 */
int collector_run(const struct collector_config *cfg, struct collector_result *res);

/* Frees res; closes res->notify_fd.  Call it as late as possible: after
 * the symbolize step, just before the launcher exits. */
void collector_result_free(struct collector_result *res);

#endif
