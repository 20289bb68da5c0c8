/*
 * analyze/diff/write_text.c - `mprof diff` as text: the totals of A and B
 * side by side with their change, then the sites that grew and those that
 * shrank in the chosen metric, each with its figures on both sides and its
 * call stack.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/output.h"
#include "analyze/output/units.h"
#include "trace/plural.h"

static const char *const status_text[] = {"changed", "new", "vanished", "same"};

/* "+3072", "-5", "0" */
static const char *fmt_change(char *buf, size_t n, uint64_t a, uint64_t b)
{
	int64_t ch = diff_change(a, b);

	snprintf(buf, n, "%s%" PRId64, ch > 0 ? "+" : "", ch);
	return buf;
}

/* B - A where a figure may be an upper bound (at_most_a, at_most_b: it
 * allows every value from 0 to it, diff_field_at_most): "+3072" when both
 * are exact, else the range the change may take, "-100..-98", "-2..+2". */
static const char *fmt_change_bounded(char *buf, size_t n, uint64_t a, bool at_most_a, uint64_t b,
				      bool at_most_b)
{
	char lo[24], hi[24];

	fmt_change(lo, sizeof(lo), a, at_most_b ? 0 : b);
	fmt_change(hi, sizeof(hi), at_most_a ? 0 : a, b);
	if (strcmp(lo, hi) == 0)
		snprintf(buf, n, "%s", lo);
	else
		snprintf(buf, n, "%s..%s", lo, hi);
	return buf;
}

/* "+10.0%", "new" (A is 0), "0.0%" */
static const char *fmt_relative(char *buf, size_t n, uint64_t a, uint64_t b)
{
	if (a == 0)
		snprintf(buf, n, "%s", b ? "new" : "0.0%");
	else
		snprintf(buf, n, "%+.1f%%", 100.0 * diff_change_real(a, b) / (double)a);
	return buf;
}

/* "12", or "at most 12" for an upper bound */
static const char *fmt_total(char *buf, size_t n, uint64_t v, bool at_most)
{
	snprintf(buf, n, "%s%" PRIu64, at_most ? "at most " : "", v);
	return buf;
}

/* Why a side's total is "-": "B: not estimated (sampled)", "A: not
 * recorded" (peak RSS of a trace without it), or both sides' reasons. */
static const char *unknown_reason(char *buf, size_t n, int f, bool ka, bool kb)
{
	const char *why = f == DF_RSS ? "not recorded" : "not estimated (sampled)";

	snprintf(buf, n, "%s: %s", !ka && !kb ? "A and B" : !ka ? "A" : "B", why);
	return buf;
}

/* "; merged, as they differ only in lines or JIT frames (--match
 * function): 2 sites of A into 1 row, 3 sites of B into 1 row": the sites
 * of one trace that entries sum, when any entry sums several. */
static void print_merged(FILE *out, const struct diff *d)
{
	size_t sites_a = 0, rows_a = 0, sites_b = 0, rows_b = 0;

	for (size_t i = 0; i < d->count; i++) {
		const struct diff_entry *e = &d->entries[i];

		if (e->a.sites > 1) {
			sites_a += e->a.sites;
			rows_a++;
		}
		if (e->b.sites > 1) {
			sites_b += e->b.sites;
			rows_b++;
		}
	}
	if (!rows_a && !rows_b)
		return;
	fprintf(out, "; merged, as they differ only in %s: ",
		d->match == DIFF_MATCH_LINE ? "JIT frames"
					    : "lines or JIT frames (--match function)");
	if (rows_a)
		fprintf(out, "%zu sites of A into %zu row%s%s", sites_a, rows_a,
			rows_a == 1 ? "" : "s", rows_b ? ", " : "");
	if (rows_b)
		fprintf(out, "%zu sites of B into %zu row%s", sites_b, rows_b, rows_b == 1 ? "" : "s");
}

static void print_totals(FILE *out, const struct diff *d)
{
	char c1[64], c2[32], va[32], vb[32];
	bool ka, kb, ma, mb;

	fprintf(out, "%-18s %18s %18s %18s %9s\n", "totals", "A", "B", "B-A", "change");
	for (int f = 0; f < DF_COUNT; f++) {
		const char *note = diff_field_qualifier(d, f);

		diff_field_at_most(d, f, &ma, &mb);
		if (!diff_field_known(d, f, &ka, &kb)) {
			fprintf(out, "  %-16s %18s %18s %18s %9s  %s%s%s\n", diff_field_label(f),
				ka ? fmt_total(va, sizeof(va), d->total_a[f], ma) : "-",
				kb ? fmt_total(vb, sizeof(vb), d->total_b[f], mb) : "-", "-", "-",
				unknown_reason(c1, sizeof(c1), f, ka, kb), note ? "; " : "",
				note ? note : "");
			continue;
		}
		if (ma || mb) {
			/* the change is a range: no one percentage */
			fprintf(out, "  %-16s %18s %18s %18s %9s  %s\n", diff_field_label(f),
				fmt_total(va, sizeof(va), d->total_a[f], ma),
				fmt_total(vb, sizeof(vb), d->total_b[f], mb),
				fmt_change_bounded(c1, sizeof(c1), d->total_a[f], ma, d->total_b[f], mb),
				"-", note);
			continue;
		}
		fprintf(out, "  %-16s %18" PRIu64 " %18" PRIu64 " %18s %9s%s%s", diff_field_label(f),
			d->total_a[f], d->total_b[f],
			fmt_change(c1, sizeof(c1), d->total_a[f], d->total_b[f]),
			fmt_relative(c2, sizeof(c2), d->total_a[f], d->total_b[f]),
			note ? "  " : "", note ? note : "");
		if (diff_field_has_margin(d, f)) {
			uint64_t m = diff_change_ci95(d->var_a[f], d->var_b[f]);
			int64_t ch = diff_change(d->total_a[f], d->total_b[f]);
			uint64_t size = ch < 0 ? -(uint64_t)ch : (uint64_t)ch;

			/* nothing to say of no change between no samples */
			if (m || size)
				fprintf(out, "  \u00b1%" PRIu64 "%s", m,
					size <= m ? ": may be sampling noise" : "");
		}
		fputc('\n', out);
	}
	fprintf(out, "sites:            %zu changed, %zu %s, %zu %s, %zu same (%zu in A, %zu in B",
		d->changed, d->added,
		d->pa->info.sampled ? "only in B (not in A's samples: A is sampled, so not known "
				      "to be new)" : "new",
		d->removed,
		d->pb->info.sampled ? "only in A (not in B's samples: B is sampled, so not known "
				      "to have vanished)" : "vanished",
		d->count - d->differ, d->pa->sites.count, d->pb->sites.count);
	print_merged(out, d);
	fputs(")\n", out);
}

/* "leaked bytes 1024 -> 4096 (+3072)"; "peak bytes (rough) ..." where
 * diff_field_qualifier qualifies the field, "temporary (at most) 1 -> 1
 * (-1..+1)" where a side is an upper bound. */
static void change(FILE *out, const struct diff *d, const struct diff_entry *e,
		   enum diff_field f)
{
	const char *note = diff_field_qualifier(d, f);
	char b[64];
	bool ma, mb;

	diff_field_at_most(d, f, &ma, &mb);
	fprintf(out, "%s%s%s%s %" PRIu64 " -> %" PRIu64 " (%s", diff_field_label(f),
		note ? " (" : "", note ? note : "", note ? ")" : "", e->a.v[f], e->b.v[f],
		fmt_change_bounded(b, sizeof(b), e->a.v[f], ma, e->b.v[f], mb));
	if (diff_field_has_margin(d, f)) {
		uint64_t m = diff_change_ci95(e->a.var[f], e->b.var[f]);

		if (m || e->a.v[f] != e->b.v[f]) /* none for no change between no samples */
			fprintf(out, " \u00b1%" PRIu64, m);
	}
	fputc(')', out);
}

/* The average lifetime of the side's freed blocks ("1.25 ms"; "< 4 ms"
 * below its trace's time resolution, profile_time_resolution_ns), or why
 * there is none: "(not in A)", "(none freed)". */
static void print_lifetime(FILE *out, const struct profile *p, const struct diff_side *s,
			   const char *side)
{
	char buf[32];

	if (!s->site)
		fprintf(out, "(not in %s)", side);
	else if (!s->freed)
		fputs(p->info.sampled ? "(no sampled block freed)" : "(none freed)", out);
	else
		fputs(output_fmt_time_ns(buf, sizeof(buf), s->lifetime_ns_sum / s->freed,
					 profile_time_resolution_ns(p)),
		      out);
}

/* e's call stack as the text report prints one, its frames merged
 * (diff_entry_frames) into frames (room for SITES_MAX_FRAMES). */
static void print_stack(FILE *out, const struct diff *d, const struct diff_entry *e,
			const struct site *s, struct diff_frame *frames)
{
	output_text_stack_head(out, s);
	diff_entry_frames(d, e, frames, s->frame_count);
	for (uint32_t i = 0; i < s->frame_count; i++)
		output_text_frame_merged(out, &frames[i].f, frames[i].lines_differ,
					 frames[i].offsets_differ);
	output_text_stack_tail(out, e->a.truncated || e->b.truncated);
}

/* Whether side s's max live is a sum of several maxima (of the sites it
 * merged, or of a site's stacks), which need not have been live at once:
 * then it is an upper bound of the most that was live. */
static bool max_live_summed(const struct diff_side *s)
{
	return s->sites > 1 || (s->site && s->site->stack_count > 1);
}

static void print_entry(FILE *out, const struct diff *d, const struct diff_entry *e, size_t rank,
			struct diff_frame *frames)
{
	const struct site_table *t;
	const struct site *s = diff_entry_site(d, e, &t);

	fprintf(out, "#%zu  %s", rank, diff_entry_not_sampled(d, e)
		? (e->status == DS_ADDED ? "not in A's samples" : "not in B's samples")
		: status_text[e->status]);
	if (e->a.site && e->b.site)
		fprintf(out, " (site %" PRIu32 " in A, site %" PRIu32 " in B)", e->a.site->id,
			e->b.site->id);
	else if (e->a.site)
		fprintf(out, " (only in A: site %" PRIu32 ")", e->a.site->id);
	else
		fprintf(out, " (only in B: site %" PRIu32 ")", e->b.site->id);
	if (e->a.sites > 1 || e->b.sites > 1)
		fprintf(out, " [merged: %" PRIu32 " sites of A, %" PRIu32 " of B, that differ only "
			"in %s]", e->a.sites, e->b.sites,
			d->match == DIFF_MATCH_LINE ? "JIT frames" : "lines or JIT frames");
	fputs("\n    ", out);
	change(out, d, e, DF_ALLOCATED);
	fputs("; ", out);
	change(out, d, e, DF_ALLOCATIONS);
	fputs("\n    ", out);
	change(out, d, e, DF_PEAK);
	fputs("; ", out);
	change(out, d, e, DF_PEAK_BLOCKS);
	fputs("\n    ", out);
	change(out, d, e, DF_LEAKED);
	fputs("; ", out);
	change(out, d, e, DF_LEAKED_BLOCKS);
	if (!d->pa->info.sampled && !d->pb->info.sampled) {
		fputs("; ", out);
		change(out, d, e, DF_TEMPORARY);
	}
	fprintf(out, "\n    max live%s%s %" PRIu64 " -> %" PRIu64 "; average lifetime%s ",
		diff_field_rough(d, DF_PEAK) ? " (rough)" : "",
		max_live_summed(&e->a) || max_live_summed(&e->b)
			? " (at most: the sum of its sites' and stacks' own maxima)" : "",
		e->a.max_live_bytes,
		e->b.max_live_bytes,
		profile_lifetimes_estimated(d->pa) || profile_lifetimes_estimated(d->pb)
			? " (estimated, per block)" : "");
	print_lifetime(out, d->pa, &e->a, "A");
	fputs(" -> ", out);
	print_lifetime(out, d->pb, &e->b, "B");
	fputc('\n', out);
	print_stack(out, d, e, s, frames);
}

/* The ranking of sites whose metric is a range (a side is an upper bound):
 * "== Grown in temporary (at most: B's are upper bounds): top 2 of 3 sites
 * that may have grown, 1 for sure; ranked by the growth the bounds
 * guarantee, then by the most they allow". */
static void print_bounded_heading(FILE *out, const struct diff *d, const struct diff_print *o,
				  bool grown, struct diff_rank_count n, size_t shown)
{
	const char *moved = grown ? "grown" : "shrunk", *verb = grown ? "growth" : "shrink";
	bool ma, mb;

	diff_field_at_most(d, o->metric, &ma, &mb);
	fprintf(out, "== %s in %s (at most: %s upper bounds): ", grown ? "Grown" : "Shrunk",
		diff_field_label(o->metric), ma && mb ? "A's and B's are" : ma ? "A's are" : "B's are");
	if (n.may == 0) {
		fprintf(out, "no site may have %s\n", moved);
		return;
	}
	fprintf(out, "top %zu of %zu sites that may have %s, %zu for sure; ranked by the %s the "
		"bounds guarantee, then by the most they allow\n", shown, n.may, moved, n.sure, verb);
}

static void print_ranking(FILE *out, struct diff *d, const struct diff_print *o, bool grown,
			  struct diff_frame *frames)
{
	const char *label = diff_field_label(o->metric);
	struct diff_rank_count count = diff_rank(d, d->entries, d->differ, o->metric, grown);
	size_t n = count.may, shown = n < o->top_n ? n : o->top_n;
	bool ma, mb;

	fputc('\n', out);
	if (diff_field_at_most(d, o->metric, &ma, &mb)) {
		print_bounded_heading(out, d, o, grown, count, shown);
		for (size_t i = 0; i < shown; i++)
			print_entry(out, d, &d->entries[i], i + 1, frames);
		return;
	}
	if (n == 0) {
		fprintf(out, "== %s: no site %s in %s\n", grown ? "Grown" : "Shrunk",
			grown ? "grew" : "shrank", label);
		return;
	}
	fprintf(out, "== %s in %s: top %zu of %zu sites%s\n", grown ? "Grown" : "Shrunk", label,
		shown, n, diff_field_rough(d, o->metric) ? " (rough: no unbiased estimate)" : "");
	for (size_t i = 0; i < shown; i++)
		print_entry(out, d, &d->entries[i], i + 1, frames);
}

static void trace_notes(FILE *out, const char *side, const struct profile *p)
{
	if (p->info.sampled && p->run.sample_rate_bytes)
		fprintf(out, "note: %s is estimated, sample rate %" PRIu64 " B: its counts and bytes "
			"are estimates\n", side, p->run.sample_rate_bytes);
	else if (p->info.sampled)
		fprintf(out, "note: %s is sampled: its counts and bytes are estimates\n", side);
	if (p->run.recording_controlled) {
		char n1[32], n2[32], n3[32];

		fprintf(out, "note: %s recorded %s of %s (paused %s): what it allocated while "
			"paused is not counted\n", side,
			output_fmt_ns(n1, sizeof(n1), p->run.recorded_ns),
			output_fmt_ns(n2, sizeof(n2), p->run.recorded_ns + p->run.paused_ns),
			output_fmt_ns(n3, sizeof(n3), p->run.paused_ns));
	}
	if (p->summary.pool_allocations)
		fprintf(out, "note: %s has %" PRIu64 " B in pool blocks (mprof.h), counted also in "
			"the malloc'd blocks that hold them\n", side, p->summary.pool_allocated_bytes);
	if (p->info.truncated)
		fprintf(out, "note: %s is truncated: the program was probably killed\n", side);
	else if (!p->info.has_end)
		fprintf(out, "note: %s has no END chunk: the recording did not finish\n", side);
	if (p->info.chunks_lost)
		fprintf(out, "note: %s lost %" PRIu64 " %s (corrupt)\n", side, p->info.chunks_lost,
			plural(p->info.chunks_lost, "chunk", "chunks"));
	if (p->info.conflicting_chunks)
		fprintf(out, "note: %s has %" PRIu64 " META, END or SYMBOLS %s unlike the first of "
			"their kind (ignored)\n", side, p->info.conflicting_chunks,
			plural(p->info.conflicting_chunks, "chunk", "chunks"));
	if (p->info.other_trace_offset)
		fprintf(out, "note: %s holds a second trace from offset %" PRIu64 " (not read)\n",
			side, p->info.other_trace_offset);
}

int diff_write_text(FILE *out, struct diff *d, const struct diff_print *o)
{
	bool same = d->differ == 0;
	struct diff_frame *frames;

	fputs("mprof diff: A = ", out);
	output_text_fputs_safe(out, o->path_a);
	fputs("\n            B = ", out);
	output_text_fputs_safe(out, o->path_b);
	fputs("\n", out);
	fprintf(out, "sites match by: %s\n", d->match == DIFF_MATCH_LINE
		? "function, source file and line (modules by file name)"
		: "function (modules by file name)");
	trace_notes(out, "A", d->pa);
	trace_notes(out, "B", d->pb);
	if (d->pa->info.sampled || d->pb->info.sampled)
		fputs("note: \u00b1N after a change is its 95% margin (sampling alone moves an "
		      "estimate that much 1 time in 20): a change within it may be sampling noise\n",
		      out);
	if (diff_field_rough(d, DF_PEAK))
		fputs("note: peak bytes and blocks (and max live) of a sampled trace are rough: "
		      "they have no unbiased estimate and no --fail-if may test them\n", out);
	if (d->saturated)
		fputs("warning: figures above 2^63-1 (a crafted or corrupt trace): sums stopped at "
		      "2^64-1 and changes at +-(2^63-1) instead of wrapping\n", out);
	fputc('\n', out);
	print_totals(out, d);
	for (int f = 0; f < DF_SITE_COUNT; f++)
		same = same && d->total_a[f] == d->total_b[f];
	if (same) {
		fputs("no difference\n", out);
		return 0;
	}
	if (o->top_n == 0)
		return 0;
	if (!(frames = malloc(SITES_MAX_FRAMES * sizeof(*frames))))
		return -ENOMEM;
	print_ranking(out, d, o, true, frames);
	print_ranking(out, d, o, false, frames);
	free(frames);
	return 0;
}
