/*
 * analyze/output/dhat_json.c - the profile as DHAT's file format, version 2
 * (`mprof report --format dhat-json`), the JSON that Valgrind's viewer
 * dh_view.html loads.  Blocks' lifetimes are in it, accesses are not
 * (mprof does not see them): "bklt": true, "bkacc": false, no rb/wb/acc.
 *
 * Owns nothing.  Times are in allocator events ("tu": "events"; every
 * allocation, free and failed realloc of the process is one, a realloc two),
 * counted from the trace's first event: DHAT's own unit, instructions, is a
 * logical clock too, and mprof's ns are only right to about 10 ms.  A
 * sampled trace numbers only its recorded events, so its times are in ns
 * ("tu": "ns", "Mtu": "ms", "tuth": 0: short-lived has no estimate there)
 * from the first time stamp, and "tl" sums the weighted lifetimes in ns:
 * divided by the blocks freed, an estimate of their mean lifetime.
 *
 *   {"dhatFileVersion": 2, "mode": "heap", "verb": "Allocated",
 *    "bklt": true, "bkacc": false,
 *    "tu": "events", "Mtu": "Mevents",
 *    "tuth": 1,        short-lived: an average lifetime of at most 1 event
 *    "cmd": str, "pid": int (0 when unknown); a sampled trace's cmd ends
 *              with " [mprof: estimated, sample rate ...] [mprof: peak and
 *              max live are rough ...]", a paused one's says its
 *              short-lived counts are at most, a filtered one's ends with
 *              " [mprof: filtered ...]",
 *    "te": int,        the last event (t-end)
 *    "tg": int,        the event of the heap's peak (t-gmax), 0 without one
 *    "pps": [          one program point per allocation site, by bytes
 *      {"tb", "tbk": total bytes and blocks allocated,
 *       "tl": the lifetimes of the blocks freed, summed (blocks never freed
 *             add nothing: DHAT counts them up to t-end, mprof has no such
 *             figure),
 *       "mb", "mbk": the site's own max live bytes and blocks (the sum of
 *             its stacks' maxima when several merged: at most),
 *       "gb", "gbk": live at t-gmax, "eb", "ebk": live at t-end,
 *       "fs": [indices into ftbl, innermost frame first]}],
 *    "ftbl": ["[root]", one string per frame: "FUNCTION (FILE:LINE)",
 *             "FUNCTION (in MODULE)", "[MODULE+0xOFFSET]" or "[unknown]",
 *             " [inlined]" after an inlined frame; then "[no stack]" and
 *             "[inherited at fork]" for the sites without a stack]}
 *
 * Every pps entry has its own fs (the viewer rejects a repeated one): a
 * site is one distinct sequence of frames, and ftbl has one entry per
 * distinct frame, even when two render alike.
 */
#define _GNU_SOURCE /* fputs_unlocked, fprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/frames.h"
#include "analyze/output/output.h"

/* Average lifetimes at most this many events make a short-lived site. */
#define DHAT_JSON_SHORT_LIVED_EVENTS 1

/* Frame f as a string of ftbl, into buf (size bytes; cut to fit). */
static const char *dhat_json_frame(const struct site_frame *f, char *buf, size_t size)
{
	const char *tail = f->inlined ? " [inlined]" : "";

	if (f->function && f->file && f->line)
		snprintf(buf, size, "%s (%s:%" PRIu32 ")%s", f->function,
			 output_base_name(f->file), f->line, tail);
	else if (f->function && f->file)
		snprintf(buf, size, "%s (%s)%s", f->function, output_base_name(f->file), tail);
	else if (f->function && f->module && strcmp(f->module, "?") != 0)
		snprintf(buf, size, "%s (in %s)%s", f->function, output_base_name(f->module), tail);
	else {
		size_t n;

		output_frame_name(f, buf, size);
		n = strlen(buf);
		snprintf(buf + n, size - n, "%s", tail);
	}
	return buf;
}

static void dhat_json_pp(FILE *out, const struct profile *p, const struct site *s)
{
	const struct site_table *t = &p->sites;
	struct alloc_stats stats;
	const struct alloc_stats *st = site_stats(s, &stats);
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);

	fprintf(out, "{\"tb\":%" PRIu64 ",\"tbk\":%" PRIu64 ",\"tl\":%" PRIu64
		",\"mb\":%" PRIu64 ",\"mbk\":%" PRIu64 ",\"gb\":%" PRIu64 ",\"gbk\":%" PRIu64
		",\"eb\":%" PRIu64 ",\"ebk\":%" PRIu64 ",\"fs\":[",
		st->allocated_bytes, st->allocations,
		profile_lifetimes_estimated(p) ? st->lifetime_ns_sum : st->lifetime_events_sum,
		st->max_live_bytes,
		st->max_live_blocks, st->peak_bytes, st->peak_blocks, st->live_bytes,
		st->live_blocks);
	if (s->unknown_stack || s->inherited)
		/* the two frames after the table's own */
		fprintf(out, "%zu", t->frame_count + (s->inherited ? 2 : 1));
	for (uint32_t i = 0; i < s->frame_count; i++)
		fprintf(out, i ? ",%" PRIu32 : "%" PRIu32, ids[i] + 1);
	fputs("]}", out);
}

/* The event number of sequence number seq within the trace (1 = its
 * first), 0 for none. */
static uint64_t dhat_json_event(const struct profile *p, uint64_t seq)
{
	uint64_t first = p->info.first_seq ? p->info.first_seq : 1;

	return seq >= first ? seq - first + 1 : 0;
}

static int dhat_json_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	const struct site_table *t = &p->sites;
	const struct run_facts *run = &p->run;
	char composed[4096];
	const char *cmd = run_facts_name(run, composed, sizeof(composed));
	uint64_t te = dhat_json_event(p, p->summary.last_seq);
	uint64_t tg = p->summary.peak_bytes ? dhat_json_event(p, p->summary.peak_seq) : 0;
	const struct heap_summary *h = &p->summary;
	bool ns = profile_lifetimes_estimated(p);
	char buf[8192];

	(void)o;
	if (ns) {
		te = h->time_known ? h->last_time_ns - h->first_time_ns : 0;
		tg = h->peak_bytes && h->time_known && h->peak_time_known &&
				     h->peak_time_ns > h->first_time_ns
			     ? h->peak_time_ns - h->first_time_ns : 0;
	}
	fprintf(out, "{\"dhatFileVersion\":2,\"mode\":\"heap\",\"verb\":\"Allocated\","
		"\"bklt\":true,\"bkacc\":false,\"tu\":\"%s\",\"Mtu\":\"%s\",",
		ns ? "ns" : "events", ns ? "ms" : "Mevents");
	fprintf(out, "\"tuth\":%d,\"cmd\":", ns ? 0 : DHAT_JSON_SHORT_LIVED_EVENTS);
	{ /* the viewer shows cmd in its header: the notes go there */
		char *titled = output_titled(cmd ? cmd : "?", p);

		if (!titled)
			return -ENOMEM;
		output_json_string(out, titled);
		free(titled);
	}
	fprintf(out, ",\"pid\":%" PRIu64 ",\"te\":%" PRIu64 ",\"tg\":%" PRIu64 ",\n\"pps\":[\n",
		run->has_pid ? run->pid : 0, te, tg > te ? te : tg);
	for (size_t i = 0; i < t->count; i++) {
		if (i)
			fputs(",\n", out);
		dhat_json_pp(out, p, &t->sites[i]);
	}
	fputs("\n],\n\"ftbl\":[\n\"[root]\"", out);
	for (size_t i = 0; i < t->frame_count; i++) {
		fputs(",\n", out);
		output_json_string(out, dhat_json_frame(&t->frames[i], buf, sizeof(buf)));
	}
	fputs(",\n\"[no stack]\",\n\"[inherited at fork]\"\n]}", out);
	return 0;
}

const struct output_format output_dhat_json = {
	.name = "dhat-json",
	.summary = "DHAT's JSON for Valgrind's viewer dh_view.html",
	.write = dhat_json_write,
	.newline_after_one = true,
};
