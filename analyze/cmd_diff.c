/*
 * analyze/cmd_diff.c - `mprof-analyze diff A B`: compares two traces (say,
 * before and after a change) allocation site by allocation site.
 *
 * Each trace goes through the report pipeline (trace_sites_load: events ->
 * statistics -> symbolized sites); the sites of A and B are then matched by
 * their symbolized frames, the key sites.c merges stacks on
 * (site_frame_equal), so that the same program run twice, or a trace against
 * itself, matches every site whatever the load addresses.  Prints the totals
 * of A, B and B-A and the sites that differ, as text (top N by the change in
 * allocated, peak and leaked bytes) or JSON (every site that differs).
 *
 * Owns both loaded traces and the match table for the command's duration.
 * Must never change a number of the report pipeline (it only subtracts) and
 * never exit: it returns the exit status to main (0 whether or not the
 * traces differ, 1 unreadable input or a failed write, 2 usage).
 *
 * JSON output, schema "mprof-diff", schema_version 1 (sizes in bytes, counts
 * weighted as in mprof-report; a delta is B - A, a signed integer):
 *
 *   {
 *     "schema": "mprof-diff", "schema_version": 1,
 *     "a": str, "b": str,             the two trace paths as given
 *     "totals": {"a": STATS, "b": STATS, "delta": STATS},
 *     "sites": [                      every site that differs, by |delta
 *                                     allocated_bytes| (desc); [] when the
 *                                     traces do not differ
 *       {"status": "changed" | "added" | "removed" | "same",
 *                  changed: in both, some number differs; added: only in B;
 *                  removed: only in A; same: in both with equal numbers
 *                  (not listed: only sites that differ are)
 *        "a": STATS, "b": STATS,      all zeros on the side without the site
 *        "delta": STATS,
 *        "a_id": int or null, "b_id": int or null,
 *                                     the site's id in `mprof report` of A / B
 *        "unknown_stack": bool, "inherited": bool, "truncated": bool,
 *        "frames": [FRAME]}           innermost first, allocator wrappers
 *                                     removed; FRAME as in mprof-report
 *                                     ({"function", "file", "line", "module",
 *                                     "offset", "inlined"})
 *     ]
 *   }
 *   STATS = {"allocations", "allocated_bytes",
 *            "peak_bytes", "peak_blocks"     (live at t-gmax),
 *            "leaked_bytes", "leaked_blocks" (live at exit),
 *            "temporary": int}
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/cmd_diff.h"
#include "analyze/commands.h"
#include "analyze/options.h"
#include "analyze/report.h"
#include "analyze/sites.h"
#include "analyze/trace_sites.h"

#define DIFF_DEFAULT_TOP 10

/* The numbers compared, in output order. */
enum diff_field {
	DF_ALLOCATIONS, DF_ALLOCATED_BYTES, DF_PEAK_BYTES, DF_PEAK_BLOCKS,
	DF_LEAKED_BYTES, DF_LEAKED_BLOCKS, DF_TEMPORARY, DF_COUNT
};

static const char *const field_json[DF_COUNT] = {
	"allocations", "allocated_bytes", "peak_bytes", "peak_blocks",
	"leaked_bytes", "leaked_blocks", "temporary",
};

static const char *const field_label[DF_COUNT] = {
	"allocations", "allocated bytes", "peak bytes", "peak blocks",
	"leaked bytes", "leaked blocks", "temporary",
};

enum diff_status { DS_CHANGED, DS_ADDED, DS_REMOVED, DS_SAME };

static const char *const status_name[] = {"changed", "added", "removed", "same"};

struct diff_site {
	const struct site *a, *b;    /* NULL on the side without the site */
	uint64_t va[DF_COUNT], vb[DF_COUNT];
	enum diff_status status;
};

struct diff_options {
	struct analyze_options common;
	const char *path_a, *path_b;
};

struct diff {
	const struct diff_options *o;
	struct trace_sites *ta, *tb;
	uint64_t total_a[DF_COUNT], total_b[DF_COUNT];
	struct diff_site *sites;     /* every site of A and B; owned */
	size_t count;
	size_t differ;               /* sites not DS_SAME (sorted first) */
	size_t changed, added, removed;
};

static void diff_usage(FILE *out)
{
	fprintf(out, "usage: %s diff A B [-n N] [--format text|json] [--alloc-fn NAME]... "
		"[--keep-wrappers]\n", analyze_name());
	fputs("  compares trace B with trace A, allocation site by allocation site\n"
	      "  -n, --top N          sites shown per ranking in text output (default 10;\n"
	      "                       0: the totals only)\n"
	      "  -f, --format FORMAT  text (default) or json (every site that differs,\n"
	      "                       schema mprof-diff 1)\n"
	      "      --alloc-fn NAME  treat function NAME as an allocator wrapper (repeatable;\n"
	      "                       NAME* matches a prefix)\n"
	      "      --keep-wrappers  keep the frames of the built-in allocator wrappers\n"
	      "  -h, --help           show this help\n"
	      "Exit status: 0 whether or not the traces differ, 1 a trace cannot be read,\n"
	      "2 usage error; run as mprof diff, 125 when the analyzer cannot be started.\n"
	      "See mprof-diff(1).\n", out);
}

/* Parses options; returns -1 to go on, or an exit status. */
static int parse_options(int argc, char **argv, struct diff_options *o)
{
	int rc = analyze_options_parse(argc, argv, "diff", DIFF_DEFAULT_TOP, diff_usage, &o->common);

	if (rc >= 0)
		return rc;
	if (argc - optind != 2) {
		analyze_error("diff: %s", argc - optind < 2 ? "wants two traces, A and B"
							      : "too many arguments (two traces: A and B)");
		diff_usage(stderr);
		return 2;
	}
	o->path_a = argv[optind];
	o->path_b = argv[optind + 1];
	return -1;
}

/* ---- numbers ---- */

static void stats_values(const struct alloc_stats *s, uint64_t v[DF_COUNT])
{
	v[DF_ALLOCATIONS] = s->allocations;
	v[DF_ALLOCATED_BYTES] = s->allocated_bytes;
	v[DF_PEAK_BYTES] = s->peak_bytes;
	v[DF_PEAK_BLOCKS] = s->peak_blocks;
	v[DF_LEAKED_BYTES] = s->live_bytes;
	v[DF_LEAKED_BLOCKS] = s->live_blocks;
	v[DF_TEMPORARY] = s->temporary;
}

static void totals_values(const struct aggregate *a, uint64_t v[DF_COUNT])
{
	v[DF_ALLOCATIONS] = a->allocations;
	v[DF_ALLOCATED_BYTES] = a->allocated_bytes;
	v[DF_PEAK_BYTES] = a->peak_bytes;
	v[DF_PEAK_BLOCKS] = a->peak_blocks;
	v[DF_LEAKED_BYTES] = a->live_bytes;
	v[DF_LEAKED_BLOCKS] = a->live_blocks;
	v[DF_TEMPORARY] = a->temporary;
}

/* |b - a| (exact for any two uint64_t). */
static uint64_t abs_delta(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : a - b;
}

/* b - a as a signed decimal: "+3072", "-5", "0" (plus is for text). */
static const char *fmt_delta(char *buf, size_t n, uint64_t a, uint64_t b, bool plus)
{
	if (a == b)
		snprintf(buf, n, "0");
	else if (b > a)
		snprintf(buf, n, "%s%" PRIu64, plus ? "+" : "", b - a);
	else
		snprintf(buf, n, "-%" PRIu64, a - b);
	return buf;
}

static bool values_equal(const uint64_t *a, const uint64_t *b)
{
	return memcmp(a, b, DF_COUNT * sizeof(*a)) == 0;
}

/* ---- matching sites by their frames ---- */

static uint64_t site_key_hash(const struct site_table *t, const struct site *s)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);
	uint64_t h = 0x9e3779b97f4a7c15ull ^ s->frame_count ^
		     ((uint64_t)s->unknown_stack << 40) ^ ((uint64_t)s->inherited << 41);

	for (uint32_t i = 0; i < s->frame_count; i++) {
		h ^= site_frame_hash(&t->frames[ids[i]]) + i;
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	return h;
}

static bool site_key_equal(const struct site_table *ta, const struct site *a,
			   const struct site_table *tb, const struct site *b)
{
	uint32_t buf_a[SITES_MAX_FRAMES], buf_b[SITES_MAX_FRAMES];
	const uint32_t *ia, *ib;

	if (a->frame_count != b->frame_count || a->unknown_stack != b->unknown_stack ||
	    a->inherited != b->inherited)
		return false;
	ia = site_frame_ids(ta, a, buf_a);
	ib = site_frame_ids(tb, b, buf_b);
	for (uint32_t i = 0; i < a->frame_count; i++)
		if (!site_frame_equal(&ta->frames[ia[i]], &tb->frames[ib[i]]))
			return false;
	return true;
}

/* Pairs every site of A with the site of B that has the same frames (sites
 * of one trace are distinct by that key, so the pairing is one to one).
 * Returns 0 or -ENOMEM. */
static int diff_match(struct diff *d)
{
	const struct site_table *ta = &d->ta->sites, *tb = &d->tb->sites;
	size_t cap = 16, mask, n = 0;
	uint32_t *hash;
	bool *used;

	while (cap < tb->count * 2)
		cap *= 2;
	mask = cap - 1;
	hash = calloc(cap, sizeof(*hash));
	used = calloc(tb->count ? tb->count : 1, sizeof(*used));
	d->sites = calloc(ta->count + tb->count + 1, sizeof(*d->sites));
	if (!hash || !used || !d->sites) {
		free(hash);
		free(used);
		return -ENOMEM;
	}
	for (size_t k = 0; k < tb->count; k++) {
		size_t i = site_key_hash(tb, &tb->sites[k]) & mask;

		while (hash[i])
			i = (i + 1) & mask;
		hash[i] = (uint32_t)(k + 1);
	}
	for (size_t k = 0; k < ta->count; k++) {
		const struct site *sa = &ta->sites[k];
		struct diff_site *ds = &d->sites[n++];
		size_t i = site_key_hash(ta, sa) & mask;

		ds->a = sa;
		stats_values(sa->s, ds->va);
		for (; hash[i]; i = (i + 1) & mask) {
			uint32_t j = hash[i] - 1;

			if (!used[j] && site_key_equal(ta, sa, tb, &tb->sites[j])) {
				used[j] = true;
				ds->b = &tb->sites[j];
				stats_values(ds->b->s, ds->vb);
				break;
			}
		}
		ds->status = !ds->b ? DS_REMOVED : values_equal(ds->va, ds->vb) ? DS_SAME
										  : DS_CHANGED;
	}
	for (size_t k = 0; k < tb->count; k++) {
		struct diff_site *ds;

		if (used[k])
			continue;
		ds = &d->sites[n++];
		ds->b = &tb->sites[k];
		stats_values(ds->b->s, ds->vb);
		ds->status = DS_ADDED;
	}
	d->count = n;
	free(hash);
	free(used);
	return 0;
}

/* ---- ordering ---- */

/* The order of the JSON list and the text rankings' tie-break: sites that
 * differ first, then by |delta| of field (desc), then by |delta| of
 * allocated, peak and leaked bytes, then A's site id, then B's. */
static enum diff_field sort_field;

static int diff_site_cmp(const void *pa, const void *pb)
{
	const struct diff_site *x = pa, *y = pb;
	const enum diff_field keys[] = {sort_field, DF_ALLOCATED_BYTES, DF_PEAK_BYTES,
					DF_LEAKED_BYTES, DF_ALLOCATIONS};
	uint32_t xa, ya, xb, yb;

	if ((x->status == DS_SAME) != (y->status == DS_SAME))
		return x->status == DS_SAME ? 1 : -1;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		uint64_t dx = abs_delta(x->va[keys[k]], x->vb[keys[k]]);
		uint64_t dy = abs_delta(y->va[keys[k]], y->vb[keys[k]]);

		if (dx != dy)
			return dx > dy ? -1 : 1;
	}
	xa = x->a ? x->a->id : UINT32_MAX;
	ya = y->a ? y->a->id : UINT32_MAX;
	if (xa != ya)
		return xa < ya ? -1 : 1;
	xb = x->b ? x->b->id : UINT32_MAX;
	yb = y->b ? y->b->id : UINT32_MAX;
	return xb < yb ? -1 : xb > yb;
}

static void diff_sort(struct diff_site *v, size_t n, enum diff_field f)
{
	sort_field = f;
	if (n > 1)
		qsort(v, n, sizeof(*v), diff_site_cmp);
}

/* Site tables and frames of the side that has ds (A preferred). */
static const struct site_table *diff_site_table(const struct diff *d, const struct diff_site *ds)
{
	return ds->a ? &d->ta->sites : &d->tb->sites;
}

static const struct site *diff_site_site(const struct diff_site *ds)
{
	return ds->a ? ds->a : ds->b;
}

/* ---- text ---- */

static void text_totals(FILE *out, const struct diff *d)
{
	char b[32];

	fprintf(out, "%-18s %20s %20s %20s\n", "totals", "A", "B", "B-A");
	for (int f = 0; f < DF_COUNT; f++)
		fprintf(out, "  %-16s %20" PRIu64 " %20" PRIu64 " %20s\n", field_label[f],
			d->total_a[f], d->total_b[f],
			fmt_delta(b, sizeof(b), d->total_a[f], d->total_b[f], true));
	fprintf(out, "sites:             %zu changed, %zu added, %zu removed, %zu same "
		"(%zu in A, %zu in B)\n", d->changed, d->added, d->removed,
		d->count - d->differ, d->ta->sites.count, d->tb->sites.count);
}

/* "allocated bytes 1024 -> 4096 (+3072)" */
static void text_change(FILE *out, const struct diff_site *ds, enum diff_field f)
{
	char b[32];

	fprintf(out, "%s %" PRIu64 " -> %" PRIu64 " (%s)", field_label[f], ds->va[f], ds->vb[f],
		fmt_delta(b, sizeof(b), ds->va[f], ds->vb[f], true));
}

static void text_site(FILE *out, const struct diff *d, const struct diff_site *ds, size_t rank)
{
	const struct site_table *t = diff_site_table(d, ds);
	const struct site *s = diff_site_site(ds);

	fprintf(out, "#%zu  %s", rank, status_name[ds->status]);
	if (ds->a && ds->b)
		fprintf(out, " (site %" PRIu32 " in A, site %" PRIu32 " in B)\n", ds->a->id,
			ds->b->id);
	else if (ds->a)
		fprintf(out, " (only in A: site %" PRIu32 ")\n", ds->a->id);
	else
		fprintf(out, " (only in B: site %" PRIu32 ")\n", ds->b->id);
	fputs("    ", out);
	text_change(out, ds, DF_ALLOCATED_BYTES);
	fputs("; ", out);
	text_change(out, ds, DF_ALLOCATIONS);
	fputs("\n    ", out);
	text_change(out, ds, DF_PEAK_BYTES);
	fputs("; ", out);
	text_change(out, ds, DF_PEAK_BLOCKS);
	fputs("\n    ", out);
	text_change(out, ds, DF_LEAKED_BYTES);
	fputs("; ", out);
	text_change(out, ds, DF_LEAKED_BLOCKS);
	fputs("; ", out);
	text_change(out, ds, DF_TEMPORARY);
	fputc('\n', out);
	report_text_stack(out, t, s, s->truncated || (ds->a && ds->b && ds->b->truncated));
}

/* One ranking: the sites whose field changed, by |change| (desc). */
static void text_ranking(FILE *out, struct diff *d, enum diff_field f, const char *title)
{
	size_t n = 0, shown;

	/* the sites that differ are d->sites[0..differ); move those whose
	 * field changed to the front, then order them */
	for (size_t i = 0; i < d->differ; i++) {
		if (d->sites[i].va[f] != d->sites[i].vb[f]) {
			struct diff_site tmp = d->sites[n];

			d->sites[n] = d->sites[i];
			d->sites[i] = tmp;
			n++;
		}
	}
	diff_sort(d->sites, n, f);
	shown = n < d->o->common.top_n ? n : d->o->common.top_n;
	fputc('\n', out);
	if (n == 0) {
		fprintf(out, "== %s: no change\n", title);
		return;
	}
	fprintf(out, "== %s: top %zu of %zu sites that changed\n", title, shown, n);
	for (size_t i = 0; i < shown; i++)
		text_site(out, d, &d->sites[i], i + 1);
}

static void text_trace_notes(FILE *out, const char *side, const struct trace_sites *t)
{
	if (t->info.sampled)
		fprintf(out, "note: %s is sampled: its counts and bytes are estimates\n", side);
	if (t->info.truncated)
		fprintf(out, "note: %s is truncated: the program was probably killed\n", side);
	else if (!t->info.has_end)
		fprintf(out, "note: %s has no END chunk: the recording did not finish\n", side);
	if (t->info.chunks_lost)
		fprintf(out, "note: %s lost %" PRIu64 " chunks (corrupt)\n", side,
			t->info.chunks_lost);
}

static void text_write(FILE *out, struct diff *d)
{
	fprintf(out, "mprof diff: A = %s\n", d->o->path_a);
	fprintf(out, "            B = %s\n", d->o->path_b);
	text_trace_notes(out, "A", d->ta);
	text_trace_notes(out, "B", d->tb);
	fputc('\n', out);
	text_totals(out, d);
	if (d->differ == 0 && values_equal(d->total_a, d->total_b)) {
		fputs("no difference\n", out);
		return;
	}
	if (d->o->common.top_n == 0)
		return;
	text_ranking(out, d, DF_ALLOCATED_BYTES, "Allocated bytes");
	text_ranking(out, d, DF_PEAK_BYTES, "Peak (live bytes at t-gmax)");
	text_ranking(out, d, DF_LEAKED_BYTES, "Leaked (live at exit)");
}

/* ---- JSON ---- */

static void json_stats(FILE *out, const char *key, const uint64_t *v)
{
	fprintf(out, "\"%s\":{", key);
	for (int f = 0; f < DF_COUNT; f++)
		fprintf(out, "%s\"%s\":%" PRIu64, f ? "," : "", field_json[f], v[f]);
	fputc('}', out);
}

static void json_delta(FILE *out, const uint64_t *a, const uint64_t *b)
{
	char buf[32];

	fputs("\"delta\":{", out);
	for (int f = 0; f < DF_COUNT; f++)
		fprintf(out, "%s\"%s\":%s", f ? "," : "", field_json[f],
			fmt_delta(buf, sizeof(buf), a[f], b[f], false));
	fputc('}', out);
}

static void json_site(FILE *out, const struct diff *d, const struct diff_site *ds)
{
	const struct site_table *t = diff_site_table(d, ds);
	const struct site *s = diff_site_site(ds);
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);

	fprintf(out, "{\"status\":\"%s\",", status_name[ds->status]);
	json_stats(out, "a", ds->va);
	fputc(',', out);
	json_stats(out, "b", ds->vb);
	fputc(',', out);
	json_delta(out, ds->va, ds->vb);
	fputs(",\"a_id\":", out);
	if (ds->a)
		fprintf(out, "%" PRIu32, ds->a->id);
	else
		fputs("null", out);
	fputs(",\"b_id\":", out);
	if (ds->b)
		fprintf(out, "%" PRIu32, ds->b->id);
	else
		fputs("null", out);
	fprintf(out, ",\"unknown_stack\":%s,\"inherited\":%s,\"truncated\":%s,\"frames\":[",
		s->unknown_stack ? "true" : "false", s->inherited ? "true" : "false",
		s->truncated || (ds->a && ds->b && ds->b->truncated) ? "true" : "false");
	for (uint32_t i = 0; i < s->frame_count; i++) {
		if (i)
			fputc(',', out);
		report_json_frame(out, &t->frames[ids[i]]);
	}
	fputs("]}", out);
}

static void json_write(FILE *out, struct diff *d)
{
	diff_sort(d->sites, d->differ, DF_ALLOCATED_BYTES);
	fputs("{\"schema\":\"mprof-diff\",\"schema_version\":1,\"a\":", out);
	report_json_string(out, d->o->path_a);
	fputs(",\"b\":", out);
	report_json_string(out, d->o->path_b);
	fputs(",\n\"totals\":{", out);
	json_stats(out, "a", d->total_a);
	fputc(',', out);
	json_stats(out, "b", d->total_b);
	fputc(',', out);
	json_delta(out, d->total_a, d->total_b);
	fputs("},\n\"sites\":[", out);
	for (size_t i = 0; i < d->differ; i++) {
		fputs(i ? ",\n" : "\n", out);
		json_site(out, d, &d->sites[i]);
	}
	fputs(d->differ ? "\n]}\n" : "]}\n", out);
}

/* Warnings a JSON reader would not see on a terminal. */
static void warn_stderr(const struct trace_sites *t)
{
	if (t->info.truncated)
		analyze_error("warning: %s: trace truncated at offset %" PRIu64
			      ": the program was probably killed", t->info.path,
			      t->info.truncated_offset);
	if (t->info.chunks_lost)
		analyze_error("warning: %s: %" PRIu64 " chunks lost (corrupt or not mprof's)", t->info.path,
			      t->info.chunks_lost);
}

/* ---- the command ---- */

static int diff_run(struct diff *d)
{
	if (diff_match(d) < 0) {
		analyze_error("out of memory matching allocation sites");
		return 1;
	}
	totals_values(&d->ta->agg, d->total_a);
	totals_values(&d->tb->agg, d->total_b);
	diff_sort(d->sites, d->count, DF_ALLOCATED_BYTES);
	for (size_t i = 0; i < d->count; i++) {
		switch (d->sites[i].status) {
		case DS_CHANGED: d->changed++; break;
		case DS_ADDED: d->added++; break;
		case DS_REMOVED: d->removed++; break;
		case DS_SAME: break;
		}
	}
	d->differ = d->changed + d->added + d->removed;
	if (d->o->common.format == ANALYZE_JSON) {
		warn_stderr(d->ta);
		warn_stderr(d->tb);
		json_write(stdout, d);
	} else {
		text_write(stdout, d);
	}
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_options o;
	struct diff d;
	struct site_options sopt;
	static char outbuf[1 << 16];
	int status, rc;

	memset(&o, 0, sizeof(o));
	rc = parse_options(argc, argv, &o);
	if (rc >= 0) {
		analyze_options_free(&o.common);
		return rc;
	}
	memset(&d, 0, sizeof(d));
	d.o = &o;
	sopt.alloc_fns = o.common.alloc_fns;
	sopt.alloc_fn_count = o.common.alloc_fn_count;
	sopt.keep_wrappers = o.common.keep_wrappers;
	d.ta = malloc(sizeof(*d.ta));
	d.tb = malloc(sizeof(*d.tb));
	if (!d.ta || !d.tb) {
		analyze_error("out of memory");
		free(d.ta);
		free(d.tb);
		analyze_options_free(&o.common);
		return 1;
	}
	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	/* both are read, so that both are complained about when both are bad */
	status = trace_sites_load(d.ta, o.path_a, &sopt);
	status |= trace_sites_load(d.tb, o.path_b, &sopt);
	if (status == 0)
		status = diff_run(&d);
	free(d.sites);
	trace_sites_free(d.ta);
	trace_sites_free(d.tb);
	free(d.ta);
	free(d.tb);
	analyze_options_free(&o.common);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		analyze_error("writing the diff: %s", strerror(errno));
		return 1;
	}
	return status;
}
