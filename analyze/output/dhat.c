/*
 * analyze/output/dhat.c - the DHAT-style text report (`mprof report
 * --format dhat`): a header (program, totals, t-gmax, t-end, exact or
 * sampled), then one block per program point (allocation site) with the
 * figures Valgrind's DHAT viewer shows for it, and its call stack.
 *
 * Owns nothing but the order of the sites (--sort).  Prints only numbers
 * the profile holds: lifetimes are over the blocks freed, in allocator
 * events (deterministic) and in ns (to about 10 ms, the TIME stamps').
 *
 * Layout (sizes in bytes, exact integers so that they can be grepped):
 *
 *   mprof dhat report: TRACE
 *   Invocation {
 *     Command: CMD            (the program's command line, else its path)
 *     PID:     N
 *     Counts:  exact | sampled (estimates)
 *   }
 *   Times {
 *     t-gmax: event E (P% of the run), T after the first time stamp
 *     t-end:  event E                  (events counted from the trace's first)
 *   }
 *   Totals {
 *     Total:       B bytes in K blocks, avg size A bytes
 *     At t-gmax:   B bytes in K blocks
 *     At t-end:    B bytes in K blocks     (leaked, or live at the end
 *                                           of the recording)
 *     Short-lived: K blocks
 *   }
 *   (three lines on what lifetimes and short-lived mean)
 *   Sorted by KEY; N program points[, the first S shown]   (-n S)
 *
 *   PP R/N (site ID) {
 *     Total:       B bytes (P%) in K blocks (P%), avg size A bytes
 *     Lifetime:    avg L events (T), max L events (T), over F blocks freed
 *                  (sampled: avg T (estimated, per block), over F blocks
 *                  freed (estimate))
 *     Max:         B bytes in K blocks (at most: ...)   (the site's own)
 *     At t-gmax:   B bytes (P%) in K blocks (P%)
 *     At t-end:    B bytes (P%) in K blocks (P%)
 *     Short-lived: K blocks (P% of its blocks)
 *     Allocated at {
 *       at FUNCTION (FILE:LINE) [MODULE]    (innermost first)
 *     }
 *   }
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/output.h"
#include "analyze/output/units.h"
#include "trace/argv_quote.h"

/* The --sort keys, the default first (dhat_sort_value's order). */
static const char *const dhat_sort_keys[] = {
	"total-bytes", "total-blocks", "max-bytes", "max-blocks", "t-gmax-bytes",
	"t-gmax-blocks", "t-end-bytes", "t-end-blocks", "avg-lifetime", "max-lifetime",
	"short-lived", NULL,
};

enum dhat_sort {
	DHAT_SORT_TOTAL_BYTES, DHAT_SORT_TOTAL_BLOCKS, DHAT_SORT_MAX_BYTES, DHAT_SORT_MAX_BLOCKS,
	DHAT_SORT_GMAX_BYTES, DHAT_SORT_GMAX_BLOCKS, DHAT_SORT_END_BYTES, DHAT_SORT_END_BLOCKS,
	DHAT_SORT_AVG_LIFETIME, DHAT_SORT_MAX_LIFETIME, DHAT_SORT_SHORT_LIVED,
};

static enum dhat_sort dhat_sort_parse(const char *key)
{
	for (size_t i = 0; key && dhat_sort_keys[i]; i++)
		if (strcmp(dhat_sort_keys[i], key) == 0)
			return (enum dhat_sort)i;
	return DHAT_SORT_TOTAL_BYTES;
}

/* A site's value of key k, for every key but avg-lifetime. */
static uint64_t dhat_sort_value(const struct alloc_stats *s, enum dhat_sort k)
{
	switch (k) {
	case DHAT_SORT_TOTAL_BYTES: return s->allocated_bytes;
	case DHAT_SORT_TOTAL_BLOCKS: return s->allocations;
	case DHAT_SORT_MAX_BYTES: return s->max_live_bytes;
	case DHAT_SORT_MAX_BLOCKS: return s->max_live_blocks;
	case DHAT_SORT_GMAX_BYTES: return s->peak_bytes;
	case DHAT_SORT_GMAX_BLOCKS: return s->peak_blocks;
	case DHAT_SORT_END_BYTES: return s->live_bytes;
	case DHAT_SORT_END_BLOCKS: return s->live_blocks;
	case DHAT_SORT_MAX_LIFETIME: return s->freed ? s->lifetime_events_max : 0;
	case DHAT_SORT_SHORT_LIVED: return s->temporary;
	case DHAT_SORT_AVG_LIFETIME: break;
	}
	return 0;
}

/* qsort_r order: larger value first, then by site id (the sites array's
 * order).  Average lifetimes (in events, in ns when sampled) compare as
 * fractions, exactly; a site with no
 * block freed has none and goes after those that have one. */
static int dhat_site_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct profile *p = ((const void **)ctx)[0];
	enum dhat_sort k = *(const enum dhat_sort *)((const void **)ctx)[1];
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	struct alloc_stats sa, sb;
	const struct alloc_stats *a = site_stats(&p->sites.sites[ia], &sa);
	const struct alloc_stats *b = site_stats(&p->sites.sites[ib], &sb);

	if (k == DHAT_SORT_AVG_LIFETIME) {
		/* a sampled trace's estimate is the average in ns */
		bool ns = profile_lifetimes_estimated(p);
		unsigned __int128 x = (unsigned __int128)(ns ? a->lifetime_ns_sum : a->lifetime_events_sum) *
				      (b->freed ? b->freed : 1);
		unsigned __int128 y = (unsigned __int128)(ns ? b->lifetime_ns_sum : b->lifetime_events_sum) *
				      (a->freed ? a->freed : 1);

		if (!a->freed != !b->freed)
			return a->freed ? -1 : 1;
		if (x != y)
			return x > y ? -1 : 1;
	} else {
		uint64_t va = dhat_sort_value(a, k), vb = dhat_sort_value(b, k);

		if (va != vb)
			return va > vb ? -1 : 1;
	}
	return ia < ib ? -1 : ia > ib;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}


/* Text from the trace with control characters as \xNN (argv_quote.h), so
 * that it cannot break the report's lines; cut after 4095 bytes. */
static void dhat_puts_safe(FILE *out, const char *s)
{
	char printable[4 * 4096];

	argv_quote_printable(s, printable, sizeof(printable));
	fputs(printable, out);
}

/* The event number of sequence number seq within the trace (1 = its
 * first), 0 for none. */
static uint64_t dhat_event(const struct profile *p, uint64_t seq)
{
	uint64_t first = p->info.first_seq ? p->info.first_seq : 1;

	return seq >= first ? seq - first + 1 : 0;
}

/* How exact the times are: "to the event clock's grain, 2 ms" (an exact
 * run: profile_time_resolution_ns), "each recorded event timed" (a sampled
 * run stamps each of them), or "to the event clock's grain, not recorded"
 * (a trace from before mprof recorded it). */
static const char *dhat_time_grain(char *buf, size_t n, const struct profile *p)
{
	char g[32];
	uint64_t grain_ns = profile_time_resolution_ns(p);

	if (grain_ns)
		snprintf(buf, n, "to the event clock's grain, %s",
			 output_fmt_grain_ns(g, sizeof(g), grain_ns));
	else if (p->info.sampled)
		snprintf(buf, n, "each recorded event timed");
	else
		snprintf(buf, n, "to the event clock's grain, not recorded");
	return buf;
}

static void dhat_header(FILE *out, const struct profile *p, enum dhat_sort k, size_t shown)
{
	const struct heap_summary *h = &p->summary;
	const struct run_facts *run = &p->run;
	char composed[4096];
	const char *cmd = run_facts_name(run, composed, sizeof(composed));
	uint64_t te = dhat_event(p, h->last_seq), tg = dhat_event(p, h->peak_seq);
	char t1[32], grain[64];

	fputs("mprof dhat report: ", out);
	dhat_puts_safe(out, p->info.path ? p->info.path : "?");
	fputs("\nInvocation {\n  Command: ", out);
	dhat_puts_safe(out, cmd ? cmd : "?");
	fputs("\n  PID:     ", out);
	if (run->has_pid)
		fprintf(out, "%" PRIu64 "\n", run->pid);
	else
		fputs("unknown\n", out);
	if (p->info.sampled)
		fprintf(out, "  Counts:  sampled (estimates: each recorded allocation stands for "
			"several); %s\n}\n\n", output_export_kind(p));
	else
		fprintf(out, "  Counts:  %s\n}\n\n",
			output_export_qualified(p) ? output_export_kind(p) : "exact");
	fputs("Times {\n", out);
	if (h->peak_bytes) {
		fprintf(out, "  t-gmax: event %" PRIu64 " (%.2f%% of the run)", tg, pct(tg, te));
		if (h->peak_time_known && h->time_known)
			fprintf(out, ", %s after the first time stamp",
				output_fmt_time_ns(t1, sizeof(t1), h->peak_time_ns - h->first_time_ns,
						   profile_time_resolution_ns(p)));
		fputc('\n', out);
	} else {
		fputs("  t-gmax: none (nothing was allocated)\n", out);
	}
	fprintf(out, "  t-end:  event %" PRIu64 "%s\n}\n\n", te,
		profile_ended_early(p) ? " (the recording ended before the program's exit)" : "");
	fprintf(out, "Totals {\n  Total:       %" PRIu64 " bytes in %" PRIu64
		" blocks, avg size %.2f bytes\n", h->allocated_bytes, h->allocations,
		h->allocations ? (double)h->allocated_bytes / (double)h->allocations : 0.0);
	fprintf(out, "  At t-gmax:   %" PRIu64 " bytes in %" PRIu64 " blocks%s\n", h->peak_bytes,
		h->peak_blocks, p->info.sampled ? " (rough: no unbiased estimate)" : "");
	fprintf(out, "  At t-end:    %" PRIu64 " bytes in %" PRIu64 " blocks\n", h->live_bytes,
		h->live_blocks);
	if (profile_has_metric(p, METRIC_TEMPORARY))
		fprintf(out, "  Short-lived: %s%" PRIu64 " blocks (%.2f%%)\n}\n",
			profile_temporary_at_most(p) ? "at most " : "", h->temporary,
			pct(h->temporary, h->allocations));
	else
		fputs("  Short-lived: not estimated (sampled)\n}\n", out);
	if (profile_lifetimes_estimated(p))
		fprintf(out, "Lifetimes are estimated: the average in time (%s) over the blocks\n"
			"freed, each block once whatever its size; in events and the maximum have\n"
			"no estimate in a sampled trace, nor have short-lived blocks.\n",
			dhat_time_grain(grain, sizeof(grain), p));
	else
		fprintf(out, "Lifetimes are over the blocks freed, in allocator events (each allocation,\n"
			"free and failed realloc is one, a realloc two) and in time (%s).\n"
			"Short-lived blocks are freed by their thread's next allocator event.\n",
			dhat_time_grain(grain, sizeof(grain), p));
	if (profile_temporary_at_most(p))
		fputs("Recording was paused part of the run: calls it did not record may lie\n"
		      "between an allocation and its free, so short-lived counts are at most\n"
		      "and lifetimes in events at least.\n", out);
	fprintf(out, "Sorted by %s; %zu program points", dhat_sort_keys[k], p->sites.count);
	if (shown < p->sites.count)
		fprintf(out, ", the first %zu shown", shown);
	fputs("\n", out);
}

static void dhat_site(FILE *out, const struct profile *p, const struct site *s, size_t rank)
{
	struct alloc_stats stats;
	const struct alloc_stats *st = site_stats(s, &stats);
	const struct heap_summary *h = &p->summary;
	char t1[32], t2[32];

	fprintf(out, "\nPP %zu/%zu (site %" PRIu32 ") {\n", rank, p->sites.count, s->id);
	fprintf(out, "  Total:       %" PRIu64 " bytes (%.2f%%) in %" PRIu64
		" blocks (%.2f%%), avg size %.2f bytes\n", st->allocated_bytes,
		pct(st->allocated_bytes, h->allocated_bytes), st->allocations,
		pct(st->allocations, h->allocations),
		st->allocations ? (double)st->allocated_bytes / (double)st->allocations : 0.0);
	if (st->freed && profile_lifetimes_estimated(p))
		fprintf(out, "  Lifetime:    avg %s (estimated, per block), over %" PRIu64
			" blocks freed (estimate)\n",
			output_fmt_time_ns(t1, sizeof(t1), st->lifetime_ns_sum / st->freed,
					   profile_time_resolution_ns(p)),
			st->freed);
	else if (st->freed)
		fprintf(out, "  Lifetime:    avg %.1f events (%s), max %" PRIu64
			" events (%s), over %" PRIu64 " blocks freed\n",
			(double)st->lifetime_events_sum / (double)st->freed,
			output_fmt_time_ns(t1, sizeof(t1), st->lifetime_ns_sum / st->freed,
					   profile_time_resolution_ns(p)),
			st->lifetime_events_max,
			output_fmt_time_ns(t2, sizeof(t2), st->lifetime_ns_max,
					   profile_time_resolution_ns(p)),
			st->freed);
	else
		fputs("  Lifetime:    no block freed\n", out);
	fprintf(out, "  Max:         %s%" PRIu64 " bytes in %" PRIu64 " blocks",
		s->stack_count > 1 ? "at most " : "", st->max_live_bytes, st->max_live_blocks);
	output_max_live_bound(out, s);
	fprintf(out, "%s\n", p->info.sampled ? " (rough)" : "");
	fprintf(out, "  At t-gmax:   %" PRIu64 " bytes (%.2f%%) in %" PRIu64 " blocks (%.2f%%)%s\n",
		st->peak_bytes, pct(st->peak_bytes, h->peak_bytes), st->peak_blocks,
		pct(st->peak_blocks, h->peak_blocks), p->info.sampled ? " (rough)" : "");
	fprintf(out, "  At t-end:    %" PRIu64 " bytes (%.2f%%) in %" PRIu64 " blocks (%.2f%%)\n",
		st->live_bytes, pct(st->live_bytes, h->live_bytes), st->live_blocks,
		pct(st->live_blocks, h->live_blocks));
	if (profile_has_metric(p, METRIC_TEMPORARY))
		fprintf(out, "  Short-lived: %s%" PRIu64 " blocks (%.2f%% of its blocks)\n",
			profile_temporary_at_most(p) ? "at most " : "", st->temporary,
			pct(st->temporary, st->allocations));
	fputs("  Allocated at {\n", out);
	output_text_stack(out, &p->sites, s, s->truncated);
	fputs("  }\n}\n", out);
}

static int dhat_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	enum dhat_sort k = dhat_sort_parse(o->sort);
	size_t n = p->sites.count, shown = o->top_n_given && o->top_n < n ? o->top_n : n;
	uint32_t *order = malloc((n ? n : 1) * sizeof(*order));
	const void *ctx[2] = {p, &k};

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), dhat_site_cmp, ctx);
	dhat_header(out, p, k, shown);
	for (size_t i = 0; i < shown; i++)
		dhat_site(out, p, &p->sites.sites[order[i]], i + 1);
	free(order);
	return 0;
}

const struct output_format output_dhat = {
	.name = "dhat",
	.summary = "DHAT-style text per program point (--sort KEY)",
	.write = dhat_write,
	.sort_keys = dhat_sort_keys,
	.takes_top = true,
};
