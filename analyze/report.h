/*
 * analyze/report.h - what a report of one trace is made of, shared by the
 * text and JSON writers: the trace's facts (event_stream.h), the totals
 * (aggregate.h), the allocation sites and their statistics (sites.h), and
 * the run facts taken from the END chunk.
 */
#ifndef MPROF_ANALYZE_REPORT_H
#define MPROF_ANALYZE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/aggregate.h"
#include "analyze/event_stream.h"
#include "analyze/sites.h"

/* Facts about the run, from END (and META/TIME when END lacks them). */
struct report_run {
	bool has_status;          /* the program exited normally */
	int64_t exit_status;
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
	const char *process_state; /* END process_state ("ended", ...), or NULL */
	const char *end_diag;     /* END diag_text: the shim's last diagnostic, or NULL */
	const char *collector_error; /* END collector_error, or NULL */
	const char *parent_trace; /* META parent_trace (fork child), or NULL */
	bool has_fork_seq;
	uint64_t fork_seq;        /* META fork_seq: the parent's seq at the fork */
	const char *exe;          /* program path, NULL when unknown */
	const char *cmdline;
	bool has_pid;
	uint64_t pid;
	/* Why the recording ended before the program's exit, or "" when it
	 * did not: then blocks still live are leaks (live at exit); otherwise
	 * they are only live when the recording ended. */
	char ended_early[320];
	/* A runtime with a heap of its own whose frames the stacks show ("the
	 * JVM"), or NULL: mprof sees only the blocks it takes from malloc. */
	const char *own_heap_runtime;
	/* When that runtime hands every object to malloc after all ("it runs
	 * with PYTHONMALLOC=malloc"), which the trace does not tell; or NULL. */
	const char *own_heap_unless;
	/* The program's malloc is not the C library's (a FOREIGN_MALLOC
	 * diagnostic): its allocations were not recorded. */
	bool foreign_malloc;
	/* Peak RSS is more than REPORT_RSS_UNSEEN_RATIO times the heap peak and
	 * REPORT_RSS_UNSEEN_BYTES above it: most memory is not malloc blocks (a
	 * bundled allocator, mmap, a runtime's heap). */
	bool rss_mostly_unseen;
	/* What the recording lost, or "" when nothing: chunks lost, events
	 * missing from the sequence, allocations made but not recorded.  The
	 * counts are then not exact. */
	char data_lost[200];
	bool has_recorder;
	uint64_t recorder_kib;    /* END recorder_kib: the recorder's own memory in
	                           * the process, at most (not in the heap peak) */
};

#define REPORT_RSS_UNSEEN_RATIO 4u
#define REPORT_RSS_UNSEEN_BYTES (64ull << 20)

struct report {
	const struct trace_info *info;
	const struct aggregate *agg;
	const struct site_table *sites;
	struct report_run run;
	size_t top_n;             /* text: sites per ranking */
	bool json_top_only;       /* JSON: only the sites among the top_n of a
	                           * ranking (-n given), else every site */
	const char *inherit_note; /* fork child: why inherited blocks are unknown */
};

/* One line of the overview of several traces (`mprof report --all`): the
 * figures of one trace's report, kept after the trace itself is freed. */
struct report_overview_row {
	char *trace;              /* the path as given; owned */
	char *program;            /* command line, else exe, else NULL; owned */
	bool has_pid;
	uint64_t pid;
	bool has_status, has_signal;
	int64_t exit_status, exit_signal;
	char *process_state;      /* END process_state, or NULL; owned */
	bool ended_early;         /* leaked_bytes are live at the end, not at exit */
	uint64_t allocations, peak_bytes, leaked_bytes;
};

/* Fills row from the report r of trace path (strings copied).  Returns 0
 * or -ENOMEM. */
int report_overview_row_fill(struct report_overview_row *row, const char *path,
			     const struct report *r);

void report_overview_row_free(struct report_overview_row *row);

/* Sorts rows by allocations, most first (their order kept on a tie). */
void report_overview_sort(struct report_overview_row *rows, size_t n);

/* Writes the text overview: a header, one line per row, and the trace with
 * the most allocations. */
void report_text_overview(FILE *out, const struct report_overview_row *rows, size_t n);

/* Writes the start of a report set (schema mprof-report-set, see
 * report_json.c) up to the opening of its "reports" array: the reports
 * follow, separated by ",\n", then report_json_set_tail. */
void report_json_set_head(FILE *out, const struct report_overview_row *rows, size_t n);
void report_json_set_tail(FILE *out);

/* Fills r->run from r->info and r->agg. */
void report_run_collect(struct report *r);

/* Whether the recording ended before the program's exit (r->run.ended_early
 * says why): blocks still live are then not known to be leaks. */
static inline bool report_ended_early(const struct report *r)
{
	return r->run.ended_early[0] != '\0';
}

/* Whether the process image ended by executing another program: its
 * blocks still live are then live at exec (the new image starts afresh). */
static inline bool report_executed(const struct report *r)
{
	return r->run.process_state && strcmp(r->run.process_state, "exec") == 0;
}

/* Signal name ("SIGKILL") or NULL. */
const char *report_signal_name(int64_t sig);

/* Writes the text report of one trace to out. */
void report_text_write(FILE *out, const struct report *r);

/* Writes the JSON object of one trace to out (no trailing newline). */
void report_json_write(FILE *out, const struct report *r);

/* One frame of a call stack as the text report prints it: "    at FUNCTION
 * (FILE:LINE) [MODULE]" and its variants, with a newline. */
void report_text_frame(FILE *out, const struct site_frame *f);

/* Prints site s's call stack, one frame a line (report_text_frame), with
 * the notes for inherited blocks, a missing stack and truncation. */
void report_text_stack(FILE *out, const struct site_table *t, const struct site *s,
		       bool truncated);

/* One frame as a JSON object (the "frames" entries of schema mprof-report). */
void report_json_frame(FILE *out, const struct site_frame *f);

/* str as a JSON string (escaped; bytes that are not UTF-8 become \u00XX),
 * or null when str is NULL. */
void report_json_string(FILE *out, const char *str);

#endif
