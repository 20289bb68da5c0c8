/*
 * analyze/diff/write_json.c - `mprof diff --format json`.
 *
 * Schema "mprof-diff", schema_version DIFF_JSON_SCHEMA_VERSION (diff.h;
 * sizes in bytes, counts weighted as in mprof-report; a change is B - A, a
 * signed integer):
 *
 *   {
 *     "schema": "mprof-diff", "schema_version": DIFF_JSON_SCHEMA_VERSION,
 *     "a": str, "b": str,             the two trace paths as given
 *     "match": "function" | "line",   how sites were matched (--match)
 *     "a_kind", "b_kind": str,        what each trace's numbers are, as the
 *                                     header of mprof-report says it ("exact:
 *                                     every allocation recorded", "estimated,
 *                                     sample rate 4096 B: ...")
 *     "a_time_resolution_ns", "b_time_resolution_ns": int or null,
 *                                     each trace's time resolution (as
 *                                     mprof-report's summary gives it): a
 *                                     "lifetime_ns_avg" below it was
 *                                     measured below the clock's resolution
 *     "saturated": bool,              a figure above 2^63-1 (a crafted or
 *                                     corrupt trace): sums stopped at 2^64-1,
 *                                     changes at +-(2^63-1), not wrapped
 *     "counts": {"changed", "added", "removed", "same", "not_sampled": int},
 *                                     the entries of each status; of the
 *                                     added and removed, "not_sampled" are
 *                                     those whose other trace is sampled
 *                                     (its sampling may have missed them)
 *     "rough": [str],                 the STATS keys with no unbiased
 *                                     estimate (the peak's when a trace is
 *                                     sampled), not for --fail-if
 *     "at_most": [str],               the STATS keys that are upper bounds
 *                                     ("temporary" when an exact trace was
 *                                     recorded only in part); "delta" is
 *                                     null for such a key when A's figure
 *                                     is a bound, else (B's alone) an
 *                                     upper bound of the change
 *     "a_at_most", "b_at_most": [str], the keys of "at_most" whose figure
 *                                     is a bound on that side (A's, B's)
 *     "totals": {"a": TOTALS, "b": TOTALS, "delta": TOTALS,
 *                "delta_ci95": MARGINS},
 *     "sites": [                      every entry that differs, largest growth
 *                                     in allocated bytes first, then the
 *                                     others by that change; [] when none
 *       {"status": "changed" | "added" | "removed",
 *                  added: only in B (new); removed: only in A (vanished)
 *        "a": SIDE, "b": SIDE,        all zeros on the side without the site
 *        "delta": STATS, "delta_ci95": MARGINS,
 *        "a_id": int or null, "b_id": int or null,
 *                                     the first site's id in `mprof report`
 *        "a_sites", "b_sites": int,   sites summed on each side (more than 1
 *                                     when they differ only in lines or JIT frames)
 *        "not_sampled": bool,         "added" with A sampled, "removed" with
 *                                     B sampled: not known to be new or vanished
 *        "unknown_stack": bool, "inherited": bool, "truncated": bool,
 *        "frames": [FRAME]}           innermost first
 *     ]
 *   }
 *   FRAME = mprof-report's frame {"function", "file", "line", "module",
 *           "offset", "inlined"} merged over the sites summed on both
 *           sides (struct diff_frame): "file" and "module" the path they
 *           all have, else the file name; "file" null when they differ in
 *           it; "line" 0 and "lines_differ": true when they are not all at
 *           one file name and line; "offset" null when they differ in it
 *   STATS = {"peak_bytes", "leaked_bytes", "allocated_bytes", "allocations",
 *            "temporary", "peak_blocks", "leaked_blocks": int; "temporary"
 *            null for a sampled side, and in "delta" when either is or
 *            when A's is an upper bound ("at_most")}
 *   MARGINS = the keys of STATS: the 95% margin of each change in "delta"
 *            when a trace is sampled (1.96 times the square root of the
 *            sum of the two estimates' variance estimates, rounded up;
 *            aggregate/sample_figures.h), 0 when both are exact, null
 *            where "delta" is null or the key is in "rough"
 *   TOTALS = STATS + {"peak_rss_bytes": int or null}
 *   SIDE = STATS + {"max_live_bytes": int (an upper bound when sites were
 *          summed), "lifetime_ns_avg": int or null (no block freed;
 *          of a sampled trace an estimate of the mean over the freed
 *          blocks, each block once)}
 *
 * Version 6 had no "delta_ci95".
 * Version 5 named a frame merged from several by its first one (A's):
 * its file, line, module and offset, and had no "lines_differ".
 * Version 4 had no "counts" or "not_sampled".
 * Version 3 had no "a_at_most" or "b_at_most".
 * Version 2 had no "a_kind", "b_kind", "rough" or "at_most".
 * Version 1 had no "match", "a_sites", "b_sites", "peak_rss_bytes",
 * "max_live_bytes" or "lifetime_ns_avg", and its "sites" were ordered by
 * the size of the change in allocated bytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "analyze/diff/diff.h"
#include "analyze/output/output.h"

/* v's fields, of side A (is_b false) or B of d: null where that side has
 * no value (diff_field_known). */
static void stats(FILE *out, const struct diff *d, const uint64_t *v, bool is_b)
{
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		bool ka, kb;

		diff_field_known(d, f, &ka, &kb);
		fprintf(out, "%s\"%s\":", f ? "," : "", diff_field_key(f));
		if (is_b ? kb : ka)
			fprintf(out, "%" PRIu64, v[f]);
		else
			fputs("null", out);
	}
}

/* B - A of each field: null where a side has no value, and where A's is
 * an upper bound (the change may then exceed B - A, which is then neither
 * the change nor an upper bound of it). */
static void delta(FILE *out, const struct diff *d, const uint64_t *a, const uint64_t *b)
{
	fputs("\"delta\":{", out);
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		bool ka, kb, ma, mb;

		diff_field_at_most(d, f, &ma, &mb);
		fprintf(out, "%s\"%s\":", f ? "," : "", diff_field_key(f));
		if (diff_field_known(d, f, &ka, &kb) && !ma)
			fprintf(out, "%" PRId64, diff_change(a[f], b[f]));
		else
			fputs("null", out);
	}
}

/* The 95% margin of each change of delta (diff_change_ci95 of the sides'
 * variances var_a, var_b): 0 where both traces are exact, null where delta
 * is null or the field is rough. */
static void delta_ci95(FILE *out, const struct diff *d, const double *var_a, const double *var_b)
{
	fputs("\"delta_ci95\":{", out);
	for (int f = 0; f < DF_SITE_COUNT; f++) {
		bool ka, kb, ma, mb;

		diff_field_at_most(d, f, &ma, &mb);
		fprintf(out, "%s\"%s\":", f ? "," : "", diff_field_key(f));
		if (!diff_field_known(d, f, &ka, &kb) || ma || diff_field_rough(d, f))
			fputs("null", out);
		else
			fprintf(out, "%" PRIu64, diff_field_has_margin(d, f)
				? diff_change_ci95(var_a[f], var_b[f]) : 0);
	}
	fputc('}', out);
}

/* The keys of the fields that are upper bounds on side A (side_a) or B. */
static void at_most_keys(FILE *out, const struct diff *d, bool side_a, bool side_b)
{
	for (int f = 0, n = 0; f < DF_SITE_COUNT; f++) {
		bool a, b;

		diff_field_at_most(d, f, &a, &b);
		if ((side_a && a) || (side_b && b))
			fprintf(out, "%s\"%s\"", n++ ? "," : "", diff_field_key(f));
	}
}

/* p's time resolution (profile_time_resolution_ns), or null. */
static void json_time_resolution(FILE *out, const struct profile *p)
{
	uint64_t res_ns = profile_time_resolution_ns(p);

	if (res_ns)
		fprintf(out, "%" PRIu64, res_ns);
	else
		fputs("null", out);
}

void diff_write_json_head(FILE *out, const struct diff *d, const struct diff_print *o)
{
	fputs("\"a\":", out);
	output_json_string(out, o->path_a);
	fputs(",\"b\":", out);
	output_json_string(out, o->path_b);
	fprintf(out, ",\"match\":\"%s\",", d->match == DIFF_MATCH_LINE ? "line" : "function");
	fputs("\"a_kind\":", out);
	output_json_string(out, output_report_kind(d->pa));
	fputs(",\"b_kind\":", out);
	output_json_string(out, output_report_kind(d->pb));
	fputs(",\"a_time_resolution_ns\":", out);
	json_time_resolution(out, d->pa);
	fputs(",\"b_time_resolution_ns\":", out);
	json_time_resolution(out, d->pb);
	fprintf(out, ",\"saturated\":%s", d->saturated ? "true" : "false");
	fprintf(out, ",\"counts\":{\"changed\":%zu,\"added\":%zu,\"removed\":%zu,\"same\":%zu,"
		"\"not_sampled\":%zu}", d->changed, d->added, d->removed, d->count - d->differ,
		(d->pa->info.sampled ? d->added : 0) + (d->pb->info.sampled ? d->removed : 0));
	fputs(",\"rough\":[", out);
	for (int f = 0, n = 0; f < DF_SITE_COUNT; f++)
		if (diff_field_rough(d, f))
			fprintf(out, "%s\"%s\"", n++ ? "," : "", diff_field_key(f));
	fputs("],\"at_most\":[", out);
	at_most_keys(out, d, true, true);
	fputs("],\"a_at_most\":[", out);
	at_most_keys(out, d, true, false);
	fputs("],\"b_at_most\":[", out);
	at_most_keys(out, d, false, true);
	fputs("],\n", out);
	fputs("\"totals\":{\"a\":{", out);
	stats(out, d, d->total_a, false);
	fputs(",\"peak_rss_bytes\":", out);
	if (d->has_rss_a)
		fprintf(out, "%" PRIu64, d->total_a[DF_RSS]);
	else
		fputs("null", out);
	fputs("},\"b\":{", out);
	stats(out, d, d->total_b, true);
	fputs(",\"peak_rss_bytes\":", out);
	if (d->has_rss_b)
		fprintf(out, "%" PRIu64, d->total_b[DF_RSS]);
	else
		fputs("null", out);
	fputs("},", out);
	delta(out, d, d->total_a, d->total_b);
	fputs(",\"peak_rss_bytes\":", out);
	if (d->has_rss_a && d->has_rss_b)
		fprintf(out, "%" PRId64, diff_change(d->total_a[DF_RSS], d->total_b[DF_RSS]));
	else
		fputs("null", out);
	fputs("},", out);
	delta_ci95(out, d, d->var_a, d->var_b);
	fputc('}', out);
}

static void side(FILE *out, const struct diff *d, const char *key, const struct diff_side *s)
{
	fprintf(out, "\"%s\":{", key);
	stats(out, d, s->v, key[0] == 'b');
	fprintf(out, ",\"max_live_bytes\":%" PRIu64 ",\"lifetime_ns_avg\":", s->max_live_bytes);
	if (s->freed)
		fprintf(out, "%" PRIu64, s->lifetime_ns_sum / s->freed);
	else
		fputs("null", out);
	fputc('}', out);
}

static void id(FILE *out, const char *key, const struct diff_side *s)
{
	fprintf(out, ",\"%s\":", key);
	if (s->site)
		fprintf(out, "%" PRIu32, s->site->id);
	else
		fputs("null", out);
}

/* Entry e, its frames merged (diff_entry_frames) in frames (room for
 * SITES_MAX_FRAMES). */
static void entry(FILE *out, const struct diff *d, const struct diff_entry *e,
		  struct diff_frame *frames)
{
	static const char *const status[] = {"changed", "added", "removed", "same"};
	const struct site_table *t;
	const struct site *s = diff_entry_site(d, e, &t);

	fprintf(out, "{\"status\":\"%s\",", status[e->status]);
	side(out, d, "a", &e->a);
	fputc(',', out);
	side(out, d, "b", &e->b);
	fputc(',', out);
	delta(out, d, e->a.v, e->b.v);
	fputs("},", out);
	delta_ci95(out, d, e->a.var, e->b.var);
	id(out, "a_id", &e->a);
	id(out, "b_id", &e->b);
	fprintf(out, ",\"a_sites\":%" PRIu32 ",\"b_sites\":%" PRIu32, e->a.sites, e->b.sites);
	fprintf(out, ",\"not_sampled\":%s", diff_entry_not_sampled(d, e) ? "true" : "false");
	fprintf(out, ",\"unknown_stack\":%s,\"inherited\":%s,\"truncated\":%s,\"frames\":[",
		s->unknown_stack ? "true" : "false", s->inherited ? "true" : "false",
		e->a.truncated || e->b.truncated ? "true" : "false");
	diff_entry_frames(d, e, frames, s->frame_count);
	for (uint32_t i = 0; i < s->frame_count; i++) {
		if (i)
			fputc(',', out);
		output_json_frame_merged(out, &frames[i].f, frames[i].lines_differ,
					 frames[i].offsets_differ);
	}
	fputs("]}", out);
}

int diff_write_json(FILE *out, struct diff *d, const struct diff_print *o)
{
	struct diff_frame *frames = malloc(SITES_MAX_FRAMES * sizeof(*frames));

	if (!frames)
		return -ENOMEM;
	diff_rank(d, d->entries, d->differ, DF_ALLOCATED, true);
	fprintf(out, "{\"schema\":\"mprof-diff\",\"schema_version\":%d,", DIFF_JSON_SCHEMA_VERSION);
	diff_write_json_head(out, d, o);
	fputs(",\n\"sites\":[", out);
	for (size_t i = 0; i < d->differ; i++) {
		fputs(i ? ",\n" : "\n", out);
		entry(out, d, &d->entries[i], frames);
	}
	fputs(d->differ ? "\n]}\n" : "]}\n", out);
	free(frames);
	return 0;
}
