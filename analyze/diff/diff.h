/*
 * analyze/diff/diff.h - two profiles compared allocation site by allocation
 * site (`mprof diff A B`): sites matched by their symbolized frames, their
 * figures side by side, and the conditions of a CI gate (--fail-if).
 *
 * Sites of A and B match when their frames match one by one: the same
 * function (or, without one, the same module offset) in a module of the
 * same file name, whatever its folder and build-id, so two builds of a
 * program in different folders compare; with DIFF_MATCH_LINE also the same
 * source file name and line.  Frames of code outside every module and
 * without a name (JIT-compiled: V8, the JVM) all match, since their
 * addresses change from run to run.  Sites of one trace that match each
 * other (they differ only in lines, under DIFF_MATCH_FUNCTION, or in such
 * frames) are summed into one
 * entry first, so every entry pairs at most one of A with one of B.
 */
#ifndef MPROF_ANALYZE_DIFF_H
#define MPROF_ANALYZE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/output/flame_data.h"
#include "analyze/output/stack_tree.h"
#include "analyze/profile/metric.h"
#include "analyze/profile/profile.h"

/* Schema version of `mprof diff --format json` (write_json.c);
 * tests/e2e read it here. */
#define DIFF_JSON_SCHEMA_VERSION 7

enum diff_match { DIFF_MATCH_FUNCTION, DIFF_MATCH_LINE };

/* The figures compared per site and in the totals, in output order. */
enum diff_field {
	DF_PEAK, DF_LEAKED, DF_ALLOCATED, DF_ALLOCATIONS, DF_TEMPORARY,
	DF_PEAK_BLOCKS, DF_LEAKED_BLOCKS,
	DF_SITE_COUNT,               /* the fields a site has */
	DF_RSS = DF_SITE_COUNT,      /* peak RSS in bytes: the totals only */
	DF_COUNT
};

/* Its metric (profile/metric.h), for every field but DF_RSS. */
extern const enum metric diff_field_metric[DF_SITE_COUNT];

/* Names: --metric / --fail-if name ("peak", ..., "rss"), JSON key, label. */
const char *diff_field_name(enum diff_field f);
const char *diff_field_key(enum diff_field f);
const char *diff_field_label(enum diff_field f);
bool diff_field_bytes(enum diff_field f);
/* The field called name (a metric name, or "rss"), or -1. */
int diff_field_parse(const char *name);

enum diff_status { DS_CHANGED, DS_ADDED, DS_REMOVED, DS_SAME };

/* One side of a matched entry: the sum over that trace's sites with the
 * entry's key. */
struct diff_side {
	const struct site *site;     /* the first of them (most allocated bytes), or NULL */
	const struct site *last;     /* the last of them; the others between
	                              * are linked by diff.next_a (next_b) */
	uint32_t sites;              /* how many were summed */
	bool truncated;              /* one of them hit --max-frames */
	uint64_t v[DF_SITE_COUNT];
	uint64_t max_live_bytes;     /* sum of the sites' maxima: an upper bound */
	uint64_t freed, lifetime_ns_sum;
	/* the variance estimate of each figure (diff_field_variance): 0 in an
	 * exact trace */
	double var[DF_SITE_COUNT];
};

struct diff_entry {
	struct diff_side a, b;
	enum diff_status status;
};

struct diff {
	const struct profile *pa, *pb;
	enum diff_match match;
	uint64_t total_a[DF_COUNT], total_b[DF_COUNT];
	double var_a[DF_COUNT], var_b[DF_COUNT]; /* the totals' variance estimates */
	bool has_rss_a, has_rss_b;
	struct diff_entry *entries;  /* owned; those that differ first (diff_build) */
	size_t count;
	size_t differ;               /* entries not DS_SAME */
	size_t changed, added, removed;
	/* per site of A (of B), by its index in the table: the next site
	 * summed into the same entry, UINT32_MAX after the last; owned */
	uint32_t *next_a, *next_b;
	bool saturated;              /* a figure or a sum stopped at UINT64_MAX, or
	                              * one is above INT64_MAX, so that a change
	                              * may stop at +-INT64_MAX (diff_change) */
};

/* Matches the sites of a and b into d (which refers to both; they must
 * outlive it).  Returns 0 or -ENOMEM. */
int diff_build(struct diff *d, const struct profile *a, const struct profile *b,
	       enum diff_match match);

void diff_free(struct diff *d);

/* A frame's part of a site's key: function (else the module offset),
 * module file name, inlining; with DIFF_MATCH_LINE the source file name and
 * line.  Frames of either trace that are equal by it are one frame of the
 * diff (its flamegraph merges them). */
uint64_t diff_frame_hash(const struct site_frame *f, enum diff_match m);
bool diff_frame_equal(const struct site_frame *a, const struct site_frame *b, enum diff_match m);

/* ---- how a frame of the diff is named (frames.c) ---- */

/*
 * A frame of an entry's stack as every output shows it: the frames at that
 * depth in every site summed into the entry, of A and of B (diff_frame_equal
 * made them one), merged.  Only what they all share is shown, so that no
 * one site's line stands for the others':
 *   f.function, f.inlined: theirs;
 *   f.module: the path they all have, else its file name (which they share);
 *   f.file: the path they all have, else the file name they all have, else
 *     NULL (some have another file or none);
 *   f.line: the line they all have (in one file name), else 0;
 *   f.module_offset: the offset they all have, unless offsets_differ.
 */
struct diff_frame {
	struct site_frame f;
	bool lines_differ;           /* not all at one file name and line */
	bool offsets_differ;         /* not all at one module offset */
};

/* Fills out[0..n) with the innermost n frames of e's stack, merged as
 * above (n at most the stack's frame_count).  Allocates nothing. */
void diff_entry_frames(const struct diff *d, const struct diff_entry *e, struct diff_frame *out,
		       size_t n);

/* Whether two merged frames show the same (every field above), and a hash
 * consistent with it: frames of different entries that show the same are
 * one frame of the flame graph. */
bool diff_frame_shown_equal(const struct diff_frame *a, const struct diff_frame *b);
uint64_t diff_frame_shown_hash(const struct diff_frame *f);

/* Whether e is a site of one side only whose other side is sampled: its
 * sampling may have missed the site, so it is neither new nor vanished. */
bool diff_entry_not_sampled(const struct diff *d, const struct diff_entry *e);

/* The frames and table to show for e (A's side when it has one). */
const struct site *diff_entry_site(const struct diff *d, const struct diff_entry *e,
				   const struct site_table **table);

/* The range of the change of f in e: B - A when both sides are exact
 * (lo == hi); a side that is an upper bound (at_most_a, at_most_b:
 * diff_field_at_most) allows every value from 0 to it. */
void diff_change_range(const struct diff_entry *e, enum diff_field f, bool at_most_a,
		       bool at_most_b, int64_t *lo, int64_t *hi);

/* How diff_rank ranked: how many entries moved (grew or shrank) for sure,
 * and how many may have (their range reaches past 0: sure ones included). */
struct diff_rank_count {
	size_t sure, may;
};

/* Orders entries[0..n) of d by the change of f: with grown, the largest
 * growth first (entries that did not grow last), else the largest shrink
 * first; ties by the change in allocated bytes, then A's site id, then
 * B's.  Where a side is an upper bound the change is a range: entries
 * rank by the growth (shrink) the range guarantees, then by the most it
 * allows, so the sure ones come first.  Returns how many grew (or shrank)
 * for sure and may have; with exact sides both are the same. */
struct diff_rank_count diff_rank(const struct diff *d, struct diff_entry *entries, size_t n,
				 enum diff_field f, bool grown);

/* Whether field f has a value on both sides (*a, *b: on each): peak RSS
 * needs the launcher's samples, and temporary allocations have no estimate
 * in a sampled trace. */
bool diff_field_known(const struct diff *d, int f, bool *a, bool *b);

/* Whether field f is rough in d: the peak's bytes and blocks when either
 * trace is sampled (profile_metric_rough).  Such a field is shown marked
 * and refused by the gate. */
bool diff_field_rough(const struct diff *d, int f);

/* Whether field f is an upper bound on either side (*a, *b: on each): the
 * temporary allocations of an exact trace recorded only in part
 * (profile_temporary_at_most), which may be anything from 0 to the figure.
 * Such a field is shown "at most", and the gate decides on it only what the
 * bound proves. */
bool diff_field_at_most(const struct diff *d, int f, bool *a, bool *b);

/* What qualifies field f of d, or NULL: "rough" (diff_field_rough), "at
 * most" (diff_field_at_most). */
const char *diff_field_qualifier(const struct diff *d, int f);

/* The variance estimate of field f of a sampled figure resting on s
 * (aggregate/sample_figures.h): allocated bytes and allocations from every
 * sample, leaked bytes and blocks from those live at the end; 0 for the
 * fields with no unbiased estimate (peak, temporary) and in exact traces. */
double diff_field_variance(const struct sample_figures *s, int f);

/* Whether the figures of field f carry a sampling margin in d: either trace
 * is sampled and f has an unbiased estimate (allocated bytes, allocations,
 * leaked bytes and blocks). */
bool diff_field_has_margin(const struct diff *d, int f);

/* The variance of p's total of field f for its change against the other
 * trace's totals other[] (indexed by field): diff_field_variance of p's
 * summary, except where p is sampled, has no sample the field rests on and
 * other[f] is not 0: p then stands for anything under
 * output_zero_sample_bound at 95% (3 sampling intervals, as its report
 * says; for a count, the blocks those hide at the other side's mean block
 * size), which a variance of (bound / 1.96)^2 makes the change's margin
 * cover, not "±0" (a trace with no sample is no proof of none). */
double diff_total_variance(const struct profile *p, int f, const uint64_t *other);

/* The 95% margin of a change whose sides have variance estimates var_a and
 * var_b (independent runs: the variances add), in the field's units,
 * rounded up. */
uint64_t diff_change_ci95(double var_a, double var_b);

/* b - a of e in field f, as a signed value clamped to +-INT64_MAX. */
int64_t diff_change(uint64_t a, uint64_t b);

/* b - a as a double, never clamped (for percentages: diff_change stops at
 * +-INT64_MAX). */
double diff_change_real(uint64_t a, uint64_t b);

/* ---- the CI gate (gate.c) ---- */

struct diff_condition {
	char text[64];               /* as given, without its blanks */
	bool per_site;               /* "site:" */
	enum diff_field field;
	bool greater, or_equal;      /* > >= < <= */
	bool relative_change;        /* a signed number: B - A; else B's value */
	bool percent;                /* the number is a percentage of A */
	double number;               /* in bytes or count (units applied), or percent */
};

/* Parses "[site:]FIELD(>|>=|<|<=)[+|-]NUMBER[K|M|G|%]", with blanks allowed
 * between those tokens ("leaked > +1 K"), into c.  Returns 0, or
 * -EINVAL with a one-line reason in err. */
int diff_condition_parse(struct diff_condition *c, const char *text, char *err, size_t err_bytes);

/* Checks that every condition can be evaluated on d: temporary allocations
 * have no estimate in a sampled trace, the peak's bytes and blocks only a
 * rough one (diff_field_rough), and peak RSS needs the launcher's
 * samples on each side the condition reads.  Returns 0, or -EINVAL with a
 * one-line reason in err (a gate must not pass because it could not look). */
int diff_gate_check(const struct diff *d, const struct diff_condition *c, size_t n, char *err,
		    size_t err_bytes);

/* Evaluates the conditions on d; writes to out every condition that held,
 * with the figures (and for site: conditions the sites) that made it hold,
 * and every condition left undecided: one on a figure that is an upper
 * bound (diff_field_at_most), which holds for some of the values the bound
 * allows and not for others.  Returns how many held; *undecided gets how
 * many were left undecided.  A gate with none held and one undecided
 * neither passes nor fails. */
size_t diff_gate(FILE *out, const struct diff *d, const struct diff_condition *c, size_t n,
		 size_t *undecided);

/* ---- writers ---- */

struct diff_print {
	const char *path_a, *path_b;
	size_t top_n;                /* entries per ranking in text */
	enum diff_field metric;      /* what the text ranks by */
	/* For a format that shows the gate's verdict (the page): the
	 * --fail-if conditions, what diff_gate wrote for them, how many
	 * held and how many were left undecided; NULL and 0 for the others. */
	const struct diff_condition *conditions;
	size_t condition_count;
	const char *gate;
	size_t held, undecided;
};

/* A diff output format: one writer (write_NAME.c) behind this table
 * (formats.c).  write returns 0 or -ENOMEM. */
struct diff_format {
	const char *name;
	int (*write)(FILE *out, struct diff *d, const struct diff_print *o);
	bool shows_gate;             /* the gate is evaluated first and shown in it */
	bool bare;                   /* no room for a note: the command says on
	                              * stderr what qualifies the --metric */
	bool takes_metric;           /* it acts on --metric / on -n: a format */
	bool takes_top;              /* that does not refuses them */
};

/* The format called name, or NULL. */
const struct diff_format *diff_format_find(const char *name);

/* The formats' names for messages: "text, json, ... or html". */
extern const char diff_format_names[];

int diff_write_text(FILE *out, struct diff *d, const struct diff_print *o);
int diff_write_json(FILE *out, struct diff *d, const struct diff_print *o);
int diff_write_folded(FILE *out, struct diff *d, const struct diff_print *o);

/*
 * A differential flame graph of d (output/flame_data.h): the entries'
 * stacks, each frame merged over the entry's sites (diff_entry_frames),
 * and the frames of different entries that show the same
 * (diff_frame_shown_equal) one key, each node's values of
 * fields[0..n) in B then in A (columns "NAME" then "a:NAME"); the page shows
 * fields[0] first.  entry_node[i] is entry i's node: its place in the
 * data's "nodes" (its stack is that node's path to the root), or
 * UINT32_MAX when the entry has no value in any field.
 */
struct diff_flame {
	struct flame_key *keys;      /* what each tree key names; owned */
	struct diff_frame *shown;    /* per key, the merged frame it names (keys
	                              * 0 and 1: the stackless sites'); owned */
	size_t key_count, key_cap;
	struct stack_tree tree;
	uint32_t *entry_node;        /* per entry of d, in d's order then; owned */
	enum diff_field fields[STACK_TREE_MAX_VALUES / 2];
	size_t n;
};

/* Builds f of d (whose entries must keep their order while f is used).
 * Returns 0, -EINVAL (n out of range) or -ENOMEM; f is to be freed either
 * way. */
int diff_flame_build(struct diff_flame *f, const struct diff *d, const enum diff_field *fields,
		     size_t n);

/* Writes f's data object (schema mprof-flamegraph: output/flame_data.h),
 * with "base" naming A.  Returns 0 or -ENOMEM. */
int diff_flame_write(FILE *out, const struct diff_flame *f, const struct diff *d);

void diff_flame_free(struct diff_flame *f);

/* The members `--format json` and the page share (write_json.c): "a" and
 * "b" (the traces' paths), "match" and "totals", without the braces. */
void diff_write_json_head(FILE *out, const struct diff *d, const struct diff_print *o);

/* `--format flamegraph`: the flame graph page (output/flame_data.h) of
 * o->metric, widths from B, colours by the change from A.  Returns 0 or
 * -ENOMEM. */
int diff_write_flamegraph(FILE *out, struct diff *d, const struct diff_print *o);

/* `--format html`: one self-contained page (write_html.c) with the gate's
 * verdict (o's conditions, gate and held).  Returns 0 or -ENOMEM. */
int diff_write_html(FILE *out, struct diff *d, const struct diff_print *o);

#endif
