/*
 * analyze/output/speedscope.c - the profile in speedscope's file format
 * (`mprof report --format speedscope`), one "sampled" profile per metric,
 * as speedscope (https://www.speedscope.app, or its npm package offline)
 * loads it.
 *
 * Owns nothing.  Each site with a value is one sample: its frames root
 * first, its value the weight.  The file:
 *
 *   {"$schema": "https://www.speedscope.app/file-format-schema.json",
 *    "exporter": "mprof@VERSION", "name": PROGRAM (a sampled trace's ends with
 *             " [mprof: estimated, sample rate ...] [mprof: peak and max
 *             live are rough ...]", a paused one's with what that makes of
 *             temporary, a filtered one's with " [mprof: filtered ...]"),
 *    "activeProfileIndex": the profile of --metric (peak by default),
 *    "shared": {"frames": [{"name": str, "file": str (when known),
 *                           "line": int (when known)}]},
 *                           one per distinct frame, then "[no stack]" and
 *                           "[inherited at fork]" for sites without a stack
 *    "profiles": [          peak, leaked, allocated, allocations, temporary
 *                           (not in a sampled trace: no estimate)
 *                           (metric.h's labels), then --metric when it is
 *                           another (peak-blocks, leaked-blocks)
 *      {"type": "sampled", "name": LABEL, with " (rough)" or " (at most)"
 *       when profile_metric_qualifier says so, "unit": "bytes" or "none",
 *       "startValue": 0, "endValue": the sum of the weights,
 *       "samples": [[frame index, ...]], "weights": [int]}]}
 *
 * The weights of a profile sum to the metric's total over the sites, which
 * is the process's total (metric_summary_value).
 */
#define _GNU_SOURCE /* fputs_unlocked, fwrite_unlocked, putc_unlocked, asprintf */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/util/saturate.h"

/* Written by one thread once aggregation has stopped: the stream's lock
 * is skipped (a profile repeats every stack five times). */
static void ss_str(FILE *out, const char *s)
{
	fputs_unlocked(s, out);
}

static void ss_u64(FILE *out, uint64_t v)
{
	char buf[24], *e = buf + sizeof(buf), *c = e;

	do
		*--c = (char)('0' + v % 10);
	while (v /= 10);
	fwrite_unlocked(c, 1, (size_t)(e - c), out);
}

static void ss_frames(FILE *out, const struct site_table *t)
{
	char buf[8192];

	ss_str(out, "\"shared\":{\"frames\":[\n");
	for (size_t i = 0; i < t->frame_count; i++) {
		const struct site_frame *f = &t->frames[i];

		ss_str(out, "{\"name\":");
		output_json_string(out, output_frame_name(f, buf, sizeof(buf)));
		if (f->file) {
			ss_str(out, ",\"file\":");
			output_json_string(out, f->file);
		}
		if (f->line) {
			ss_str(out, ",\"line\":");
			ss_u64(out, f->line);
		}
		ss_str(out, "},\n");
	}
	ss_str(out, "{\"name\":\"[no stack]\"},\n{\"name\":\"[inherited at fork]\"}\n]},\n");
}

/* Site s's frames, root first. */
static void ss_sample(FILE *out, const struct site_table *t, const struct site *s)
{
	uint32_t buf[SITES_MAX_FRAMES];
	const uint32_t *ids = site_frame_ids(t, s, buf);

	putc_unlocked('[', out);
	if (s->unknown_stack || s->inherited)
		ss_u64(out, t->frame_count + (s->inherited ? 1 : 0));
	for (uint32_t i = s->frame_count; i-- > 0;) {
		if (i + 1 < s->frame_count || s->unknown_stack || s->inherited)
			putc_unlocked(',', out);
		ss_u64(out, ids[i]);
	}
	putc_unlocked(']', out);
}

/* Metric m's profile, named by its label and what qualifies it: "peak
 * bytes (rough)" (a sampled trace), "temporary allocations (at most)" (a
 * paused one). */
static void ss_profile(FILE *out, const struct profile *p, enum metric m)
{
	const struct site_table *t = &p->sites;
	const struct metric_info *mi = metric_info(m);
	const char *q = profile_metric_qualifier(p, m);
	char name[128];
	uint64_t total = 0;
	bool first = true, saturated = p->summary.saturated;

	for (size_t i = 0; i < t->count; i++)
		total = sat_add(total, metric_site_value(&t->sites[i], m), &saturated);
	snprintf(name, sizeof(name), "%s%s%s%s%s", mi->label, q ? " (" : "", q ? q : "",
		 q ? ")" : "", saturated ? " (figures stopped at 2^64-1: a damaged trace)" : "");
	ss_str(out, "{\"type\":\"sampled\",\"name\":");
	output_json_string(out, name);
	ss_str(out, mi->bytes ? ",\"unit\":\"bytes\"" : ",\"unit\":\"none\"");
	ss_str(out, ",\"startValue\":0,\"endValue\":");
	ss_u64(out, total);
	ss_str(out, ",\n\"samples\":[");
	for (size_t i = 0; i < t->count; i++) {
		if (!metric_site_value(&t->sites[i], m))
			continue;
		if (!first)
			ss_str(out, ",\n");
		first = false;
		ss_sample(out, t, &t->sites[i]);
	}
	ss_str(out, "],\n\"weights\":[");
	first = true;
	for (size_t i = 0; i < t->count; i++) {
		uint64_t v = metric_site_value(&t->sites[i], m);

		if (!v)
			continue;
		if (!first)
			putc_unlocked(',', out);
		first = false;
		ss_u64(out, v);
	}
	ss_str(out, "]}");
}

static int ss_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	char composed[4096];
	const char *name = run_facts_name(&p->run, composed, sizeof(composed));
	bool extra = o->metric >= METRIC_RANKED;

	ss_str(out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
	       "\"exporter\":\"mprof@" PACKAGE_VERSION "\",\"name\":");
	{ /* speedscope shows the name in its title bar: the notes go there */
		char *titled = output_titled(name ? name : "mprof", p);

		if (!titled)
			return -ENOMEM;
		output_json_string(out, titled);
		free(titled);
	}
	ss_str(out, ",\"activeProfileIndex\":");
	/* the extra profile comes after the ranked ones written (temporary is
	 * the last of them, left out of a sampled trace; --metric temporary
	 * is refused there) */
	ss_u64(out, extra ? (uint64_t)(METRIC_RANKED - !profile_has_metric(p, METRIC_TEMPORARY))
			  : (uint64_t)o->metric);
	ss_str(out, ",\n");
	ss_frames(out, &p->sites);
	ss_str(out, "\"profiles\":[\n");
	for (int m = 0, first = 1; m < METRIC_RANKED; m++) {
		if (!profile_has_metric(p, (enum metric)m))
			continue; /* temporary in a sampled trace: no estimate */
		if (!first)
			ss_str(out, ",\n");
		first = 0;
		ss_profile(out, p, (enum metric)m);
	}
	if (extra) {
		ss_str(out, ",\n");
		ss_profile(out, p, o->metric);
	}
	ss_str(out, "\n]}");
	return 0;
}

const struct output_format output_speedscope = {
	.name = "speedscope",
	.summary = "speedscope's JSON, one profile per metric",
	.write = ss_write,
	.takes_metric = true,
	.newline_after_one = true,
};
