/*
 * analyze/diff/write_folded.c - `mprof diff --format folded`: one line per
 * matched site, its frames root first joined by ';', then its value of the
 * --metric in A and in B ("main;parse;xmalloc 1024 4096"), the two-column
 * form that difffolded.pl writes and flamegraph.pl draws as a differential
 * flamegraph.  Frame names are made safe as the report's folded output
 * makes them (output_folded_name_clean: ';' becomes ':', control
 * characters and a space before trailing digits become '_').
 */
#include <inttypes.h>
#include <stdio.h>

#include "analyze/diff/diff.h"
#include "analyze/output/folded.h"
#include "analyze/output/frames.h"

static void put_name(FILE *out, const char *name)
{
	char buf[1024];

	snprintf(buf, sizeof(buf), "%s", name);
	fputs(output_folded_name_clean(buf), out);
}

int diff_write_folded(FILE *out, struct diff *d, const struct diff_print *o)
{
	char name[1024];

	for (size_t i = 0; i < d->count; i++) {
		const struct diff_entry *e = &d->entries[i];
		const struct site_table *t;
		const struct site *s = diff_entry_site(d, e, &t);
		uint32_t buf[SITES_MAX_FRAMES];
		const uint32_t *ids = site_frame_ids(t, s, buf);

		if (!e->a.v[o->metric] && !e->b.v[o->metric])
			continue;
		if (!s->frame_count)
			put_name(out, output_site_stackless_name(s));
		for (uint32_t k = s->frame_count; k-- > 0;) {
			put_name(out, output_frame_name(&t->frames[ids[k]], name, sizeof(name)));
			if (k)
				putc(';', out);
		}
		fprintf(out, " %" PRIu64 " %" PRIu64 "\n", e->a.v[o->metric], e->b.v[o->metric]);
	}
	return 0;
}
