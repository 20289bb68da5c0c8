/*
 * analyze/output/output.h - the report writers: one file per --format, each
 * behind a struct output_format, all listed in formats.c.  A writer is
 * given a read-only profile (profile/profile.h) and the options below, and
 * never the aggregation's internals.  Adding a format is one file here and
 * one line in formats.c.  (The shape is SQLite's mem_methods and memray's
 * reporters: a small table of functions per implementation.)
 */
#ifndef MPROF_ANALYZE_OUTPUT_H
#define MPROF_ANALYZE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/output/overview.h"
#include "analyze/profile/metric.h"
#include "analyze/profile/profile.h"

/* What the user asked of a writer. */
struct output_options {
	size_t top_n;             /* sites per ranking (text); 0: the summary only */
	bool top_n_given;         /* -n given: JSON keeps only the top sites */
	enum metric metric;       /* --metric (writers of one metric) */
	bool metric_given;
	const char *sort;         /* --sort KEY, one of the format's sort_keys; NULL:
	                           * its default (the first) */
};

/*
 * One format.  write returns 0, or -errno when it could not write (out of
 * memory); errors of out itself are the caller's to check.  A format that
 * can hold several traces has set_begin, set_between and set_end: the
 * overview rows (most allocations first) open the set, then each trace's
 * write, set_between between two of them.  Without them the format takes
 * one trace.  A writer whose output for one trace must not end with a
 * newline inside a set (a JSON object before ",") sets newline_after_one:
 * a lone trace's output then gets it from the caller.
 */
struct output_format {
	const char *name;         /* --format NAME */
	const char *summary;      /* one line of --help */
	int (*write)(FILE *out, const struct profile *p, const struct output_options *o);
	void (*set_begin)(FILE *out, const struct report_overview_row *rows, size_t n);
	void (*set_between)(FILE *out);
	void (*set_end)(FILE *out);
	bool newline_after_one;
	/* The --sort keys it takes, the default first, ending with NULL; NULL:
	 * it takes no --sort. */
	const char *const *sort_keys;
	/* Its output has no room for a note (folded stacks): the command says
	 * on stderr what qualifies the --metric (output_metric_note). */
	bool bare;
	/* It acts on --metric / on -n; a format that does not refuses them
	 * (report_job_make), so that no option is silently ignored. */
	bool takes_metric;
	bool takes_top;
};

/* The format called name, or NULL. */
const struct output_format *output_find(const char *name);

/* The formats, in --help order, ending with NULL. */
extern const struct output_format *const output_formats[];

/* Their names, "text, json, ..." (for messages). */
const char *output_format_names(void);

/* The formats (formats.c lists them). */
extern const struct output_format output_text, output_json, output_html;
extern const struct output_format output_folded, output_flamegraph;
extern const struct output_format output_massif;
extern const struct output_format output_pprof;
extern const struct output_format output_dhat, output_dhat_json, output_speedscope;

/* Schema versions of the report's JSON (json.c): "mprof-report", one
 * trace's, and "mprof-report-set", several traces'; tests/e2e read them here. */
#define OUTPUT_REPORT_SCHEMA_VERSION 2
#define OUTPUT_REPORT_SET_SCHEMA_VERSION 2

/* A macro's value as a string literal, for help text that names a schema
 * version. */
#define OUTPUT_STRINGIFY(x) OUTPUT_STRINGIFY_(x)
#define OUTPUT_STRINGIFY_(x) #x

/* What the text report's header says of the counts (static text): exact,
 * estimated, incomplete, or exact only up to an early end. */
const char *output_report_kind(const struct profile *p);

/* The text report's header words for exact counts of every allocation
 * (what output_report_kind says of a whole, exact recording). */
#define OUTPUT_KIND_EXACT "exact: every allocation recorded"

/* What the reports say of an exit status that no exit note of the
 * recorder's gives (profile_exit_unnoted); the page (report.js) says the
 * same. */
#define OUTPUT_EXIT_UNNOTED                                                              \
	"the recorder saw no exit: an exit system call of the program's own, or an exec "  \
	"it did not see whose program gave this status"
/* The same for a Go program, whose runtime always exits by its own exit
 * system call (run_facts own_heap_runtime "Go"). */
#define OUTPUT_EXIT_UNNOTED_GO "by the Go runtime's own exit system call"

/* What an export's place for a comment (DHAT's counts and command, massif's
 * desc, pprof's comments, speedscope's name) says
 * of p's counts: output_report_kind without its pointers to the text
 * report's lines ("; see recorded"), and when recording was paused part of
 * the run "recording paused part of the run: recorded 1.0 s of 3.0 s", also
 * for a sampled trace.  Static text (per thread), valid until the next call. */
const char *output_export_kind(const struct profile *p);

/* Whether output_export_kind(p) qualifies the counts: anything but an
 * exact recording of every allocation of the whole run. */
bool output_export_qualified(const struct profile *p);

/* The note that pool blocks (mprof.h) are counted twice, with their
 * allocations and bytes, into buf (size bytes), for exports that carry
 * notes (pprof's comments, the flame graph's); 0 when the program
 * announced none, else 1. */
int output_pool_note(char *buf, size_t size, const struct profile *p);

/* What qualifies metric m of p (profile_metric_qualifier), as one
 * sentence into buf (size bytes): "peak bytes of a sampled trace are rough:
 * ..."; 0 when nothing does, else 1. */
int output_metric_note(char *buf, size_t size, const struct profile *p, enum metric m);

/* The note that the function filters kept only some sites, whose sums then
 * are not the program's, into buf (size bytes), for the exports that sum
 * sites (pprof's comments, the flame graph's notes, speedscope's name, DHAT
 * JSON's command); 0 without filters, else 1. */
int output_filter_note(char *buf, size_t size, const struct profile *p);

/* What qualifies some metrics of p beyond output_export_kind, as one
 * sentence into buf (size bytes): a sampled trace's peak and max live are
 * rough, a paused exact trace's temporary counts at most (the qualifiers of
 * profile_metric_qualifier, for the exports that show them nowhere else);
 * 0 when nothing does, else 1. */
int output_qualifier_note(char *buf, size_t size, const struct profile *p);

/* name followed by what a client shows beside a program's name should say
 * of p: " [mprof: KIND]" with output_export_kind when it qualifies the
 * counts (estimated, partly recorded, ...), " [mprof: NOTE]" with
 * output_qualifier_note, " [mprof: filtered ...]" when filtered
 * (speedscope's name, DHAT JSON's command).  Returns a new
 * string (the caller frees it), or NULL when out of memory. */
char *output_titled(const char *name, const struct profile *p);

/* One frame of a call stack as the text report prints it: "    at FUNCTION
 * (FILE:LINE) [MODULE]" and its variants, with a newline. */
void output_text_frame(FILE *out, const struct site_frame *f);

/* The same for a frame that stands for several (a diff's, diff.h's struct
 * diff_frame): with lines_differ "(FILE, lines differ)", or "(files
 * differ)" without a FILE they share; with offsets_differ no offset. */
void output_text_frame_merged(FILE *out, const struct site_frame *f, bool lines_differ,
			      bool offsets_differ);

/* After a site's max live (text report, DHAT text): for a site of several
 * call stacks that symbolize alike, " (the sum of its N call stacks' own
 * maxima, which need not have been live at once)"; nothing for one stack. */
void output_max_live_bound(FILE *out, const struct site *s);

/* Prints site s's call stack, one frame a line (output_text_frame), with
 * the notes for inherited blocks, a missing stack and truncation. */
void output_text_stack(FILE *out, const struct site_table *t, const struct site *s,
		       bool truncated);

/* What output_text_stack prints before site s's frames (the note for
 * inherited blocks or a missing stack) and after them (the truncation
 * note, when truncated), for a writer that prints the frames itself. */
void output_text_stack_head(FILE *out, const struct site *s);
void output_text_stack_tail(FILE *out, bool truncated);

/* s, text read from a trace (a name, a path), as output/text.c writes it
 * for a terminal: control characters and bytes that are not UTF-8 as \xNN
 * (argv_quote_printable), cut after about 1000 bytes; "(null)" for NULL. */
void output_text_fputs_safe(FILE *out, const char *s);

/* One frame as a JSON object (the "frames" entries of schema mprof-report). */
void output_json_frame(FILE *out, const struct site_frame *f);

/* The same for a frame that stands for several (a diff's, diff.h's struct
 * diff_frame): "offset" null with offsets_differ, and "lines_differ". */
void output_json_frame_merged(FILE *out, const struct site_frame *f, bool lines_differ,
			      bool offsets_differ);

/* str as a JSON string (escaped; a byte that is not UTF-8 reads back as
 * the text \xNN, json.c), or null when str is NULL. */
void output_json_string(FILE *out, const char *str);

#endif
