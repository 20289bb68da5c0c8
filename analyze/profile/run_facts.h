/*
 * analyze/profile/run_facts.h - what a report states about the run besides
 * the heap: exit status or signal, run time, peak RSS, what was lost, the
 * runtime whose own heap mprof cannot see.  Gathered from the END and META
 * chunks, the process record and the sites (run_facts.c).
 */
#ifndef MPROF_ANALYZE_PROFILE_RUN_FACTS_H
#define MPROF_ANALYZE_PROFILE_RUN_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/profile/sites.h"
#include "analyze/profile/summary.h"
#include "analyze/read/event_stream.h"

/* Sample rates a report lists by value (the rest it counts). */
#define RUN_FACTS_RATES_LISTED 8

/* Facts about the run, from END (and META/TIME when END lacks them). */
struct run_facts {
	bool has_status;          /* the program exited normally */
	int64_t exit_status;
	bool exit_unnoted;        /* END exit_unnoted=1 with the status: the
	                           * image left no exit note (an exit system call
	                           * of the program's own, or an exec the recorder
	                           * did not see: then the status is the later
	                           * program's) */
	bool has_signal;          /* the program was killed by a signal */
	int64_t exit_signal;
	bool has_run_time;
	uint64_t run_time_ns;     /* END wall_ns, else first to last TIME */
	bool has_peak_rss;
	uint64_t peak_rss_kib;    /* END peak_rss_kib: the process image's own */
	bool peak_rss_sampled;    /* END peak_rss_how=sampled: read while it ran,
	                           * so at least this (a late peak may be missed) */
	bool has_launcher_cpu;
	uint64_t launcher_cpu_ns; /* the profiler's own CPU time (launcher) */
	bool has_ring_waits;
	uint64_t ring_waits;      /* times the program waited for a full ring */
	bool has_unrecorded;
	uint64_t unrecorded_allocs, unrecorded_frees;
	uint64_t execs_unrecorded; /* END execs_unrecorded: programs this process
	                            * started with the recorder dropped */
	uint64_t children_unrecorded; /* END children_unrecorded: of the children
	                            * counted in forks, those that ran unrecorded */
	bool no_children;         /* META no_children=1: mprof run --no-children
	                           * recorded no child process */
	const char *exec_unrecorded_path; /* END exec_unrecorded_path, or NULL */
	const char *exec_into;    /* END exec_into: the program this image executed,
	                           * not recorded, or NULL; exec_into_why why */
	const char *exec_into_why;
	const char *process_state; /* END process_state ("ended", ...), or NULL */
	const char *end_diag;     /* END diag_text: the shim's last diagnostic, or NULL */
	const char *collector_error; /* END collector_error, or NULL */
	const char *write_error;  /* END write_error: the launcher could not
	                           * write the trace to its end (disk full),
	                           * or NULL */
	const char *parent_trace; /* META parent_trace (fork child), or NULL */
	bool has_fork_seq;
	uint64_t fork_seq;        /* META fork_seq: the parent's seq at the fork */
	const char *exe;          /* program path, NULL when unknown */
	const char *cmdline;      /* the command line at the process's end
	                           * (END command) when the program changed it
	                           * (a forked worker's title), else at its start
	                           * (PROCESS record, META command); or NULL */
	const char *cmdline_start; /* the one at its start when END gives a
	                           * later one, else NULL */
	const char *comm;         /* END comm: the process name the program gave
	                           * itself (prctl PR_SET_NAME), or NULL */
	const char *name_how;     /* END name_how with either: "exit" (read at
	                           * exit()), "filter" (the same, but the process
	                           * name is the one it had when it installed a
	                           * seccomp filter) or "seen" (mprof's last look
	                           * while it ran); or NULL */
	bool has_pid;
	uint64_t pid;
	bool has_ns_pid;          /* META ns_pid: its pid in its own PID
	                           * namespace, not mprof's */
	uint64_t ns_pid;
	/* Why the recording ended before the program's exit, or "" when it
	 * did not: then blocks still live are leaks (live at exit); otherwise
	 * they are only live when the recording ended. */
	char ended_early[320];
	/* A runtime with a heap of its own whose frames the stacks show ("the
	 * JVM"), or NULL: mprof sees only the blocks it takes from malloc. */
	const char *own_heap_runtime;
	/* When that runtime hands every object to malloc after all ("it runs
	 * with PYTHONMALLOC=malloc") and the trace cannot tell (Python's frames
	 * name neither pymalloc's functions nor only the raw allocator's: a
	 * stripped interpreter); or NULL. */
	const char *own_heap_unless;
	/* The program's malloc is not the C library's (a FOREIGN_MALLOC
	 * diagnostic): its allocations were not recorded. */
	bool foreign_malloc;
	/* C++ operator new and delete are the allocator's own, past the
	 * recorder (a FOREIGN_NEW diagnostic): C++ allocations not recorded. */
	bool foreign_new;
	/* Peak RSS is more than REPORT_RSS_UNSEEN_RATIO times the heap peak and
	 * REPORT_RSS_UNSEEN_BYTES above it: most memory is not malloc blocks (a
	 * bundled allocator, mmap, a runtime's heap). */
	bool rss_mostly_unseen;
	/* What the recording lost, or "" when nothing: chunks lost, events
	 * missing from the sequence, allocations made but not recorded.  The
	 * counts are then not exact. */
	char data_lost[200];
	/* What the events name but the trace lacks, or "" when nothing: call
	 * stacks whose STACK records, and module maps whose MODULES records,
	 * were lost (a damaged ring, a cut trace, a lost chunk).  The counts
	 * are whole, but those allocations have no call stack or no symbols. */
	char meta_lost[200];
	uint64_t sample_rate_bytes; /* META sample_rate_bytes: the sampling
	                           * interval of a sampled trace; 0: none given */
	bool has_sample_seed;     /* a sampled trace whose META gives its seed */
	uint64_t sample_seed;     /* META sample_seed: the process's sampler seed */
	bool has_recorder;
	uint64_t recorder_kib;    /* END recorder_kib: the recorder's own memory in
	                           * the process, at most (not in the heap peak) */
	/* Recording stopped and started (CONTROL records; META paused=1: the
	 * run started with recording off).  Times are measured from the first
	 * TIME stamp, which the recorder takes when it starts, to that plus
	 * the run time (END wall_ns; else to the last stamp). */
	bool recording_controlled; /* paused=1 or any CONTROL record */
	bool paused_at_start;
	uint64_t recording_stops;  /* CONTROL records that stopped it */
	uint64_t recording_starts; /* ... and that started it */
	uint64_t recorded_ns;      /* while recording was on */
	uint64_t paused_ns;        /* the rest of the run */
	uint64_t rate_min_bytes, rate_max_bytes; /* sample rates of the sampled
	                           * stretches (0, 0: none was sampled) */
	bool partly_exact;         /* some stretches sampled, some exact */
	uint64_t time_resolution_ns; /* META time_resolution_ns: the grain of the
	                           * event clock that times exact-mode events
	                           * (each up to that late); 0: not recorded */
	uint64_t max_frames;       /* META max_frames: mprof run --max-frames;
	                            * 0: not recorded */
	uint64_t stacks_cut_at_max_frames; /* call stacks cut at max_frames
	                            * (of sites.truncated_stacks) */
	bool stacks_cut_notable;   /* at least 1 in RUN_FACTS_CUT_STACKS_NOTABLE */
	uint64_t rate_count;       /* distinct rates of the sampled stretches */
	uint64_t rates_bytes[RUN_FACTS_RATES_LISTED]; /* the lowest of them,
	                           * ascending (min(rate_count, listed)) */
};

#define REPORT_RSS_UNSEEN_RATIO 4u
#define REPORT_RSS_UNSEEN_BYTES (64ull << 20)

/* Fills run from the trace's facts, its totals and its sites; the strings
 * it points at belong to info. */
void run_facts_collect(struct run_facts *run, const struct trace_info *info,
		       const struct heap_summary *h, const struct site_table *sites);

/* What reports call the process (trace/proc_name.h): its command line
 * (else its executable), with a changed process name in front in brackets
 * when the command line does not hold it.  Returns the command line or the
 * executable itself, or out (cap bytes, cut to fit) when it composes one;
 * NULL when neither is known. */
const char *run_facts_name(const struct run_facts *run, char *out, size_t cap);

/* Signal name ("SIGKILL") or NULL. */
const char *run_signal_name(int64_t sig);

/* Upper bounds of END figures a report believes (what is above is taken as
 * damage and left unknown): a run of 100 years, a peak RSS in KiB whose
 * bytes fit 64 bits. */
#define RUN_FACTS_MAX_RUN_NS (100ull * 365 * 24 * 3600 * 1000000000ull)
#define RUN_FACTS_MAX_RSS_KIB (UINT64_MAX / 1024)
/* mprof run --max-frames takes 1 to this. */
#define RUN_FACTS_MAX_FRAMES 1024u
/* The report says how to keep more frames when at least 1 call stack in
 * this many was cut at --max-frames (one such stack can hide a leak's
 * caller; a rare one is noise). */
#define RUN_FACTS_CUT_STACKS_NOTABLE 100u

/* The run time in an END chunk's pairs (wall_ns): true with *ns when it is
 * a decimal number from 0 to RUN_FACTS_MAX_RUN_NS, the one rule of the
 * report's run time and of windows given in percent. */
bool run_facts_wall_ns(const struct kv_list *end, uint64_t *ns);

#endif
