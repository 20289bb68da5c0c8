/*
 * analyze/output/flamegraph.c - an interactive flame graph of one trace in
 * one self-contained HTML page (`mprof report --format flamegraph`): the
 * page (assets/flamegraph.html, built in as a C string) with the merged
 * call stacks of the sites that have a value of --metric embedded as JSON
 * (flame_data.h: columns the metric and, unless it is allocations, the
 * allocations).  The page draws them, zooms, searches and turns them upside
 * down (the allocating functions first) by itself; nothing is fetched.
 *
 * Stacks are merged by frame (function, file, line, module, inlining), so
 * a frame's box has one file:line.  Owns nothing past write.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/flame_data.h"
#include "analyze/output/output.h"

struct flamegraph_ctx {
	const struct profile *p;
	enum metric m;
};

static bool flamegraph_site_values(const struct site *s, uint64_t *values, void *ctx)
{
	enum metric m = ((const struct flamegraph_ctx *)ctx)->m;

	values[0] = metric_site_value(s, m);
	values[1] = metric_site_value(s, METRIC_ALLOCATIONS);
	return values[0] != 0;
}

/* The data of the page (flame_data.h). */
static int flamegraph_data(FILE *out, void *ctx)
{
	const struct flamegraph_ctx *c = ctx;
	const struct site_table *t = &c->p->sites;
	const char *columns[2] = {metric_info(c->m)->name, metric_info(METRIC_ALLOCATIONS)->name};
	size_t key_count = t->frame_count + 2;
	struct flame_key *keys = malloc(key_count * sizeof(*keys));
	struct stack_tree tree;
	int rc;

	if (!keys)
		return -ENOMEM;
	for (size_t k = 0; k < key_count; k++)
		keys[k] = (struct flame_key){t, (uint32_t)k, NULL, false};
	/* the frames of every site with a value, merged by frame; the
	 * stackless sites under two frames of their own */
	rc = stack_tree_of_sites(&tree, t, NULL, c->m == METRIC_ALLOCATIONS ? 1 : 2,
				 flamegraph_site_values, ctx);
	if (rc == 0) {
		fputc('{', out);
		flame_data_schema(out);
		flame_data_run(out, c->p);
		fputc(',', out);
		flame_data_metric(out, c->m, profile_metric_qualifier(c->p, c->m));
		fputc(',', out);
		rc = flame_data_tree(out, &tree, keys, key_count, columns);
		fputs("}", out);
	}
	stack_tree_free(&tree);
	free(keys);
	return rc;
}

static int flamegraph_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	struct flamegraph_ctx c = {p, o->metric};
	char prefix[128], composed[4096];
	const char *program = flame_data_program(p, composed, sizeof(composed));
	const char *q = profile_metric_qualifier(p, o->metric);

	/* "peak bytes: ", "peak bytes (rough): " */
	snprintf(prefix, sizeof(prefix), "%s%s%s%s: ", metric_info(o->metric)->label, q ? " (" : "",
		 q ? q : "", q ? ")" : "");
	return flame_page_write(out, prefix, program ? program : p->info.path, " - mprof flame graph",
				flamegraph_data, &c);
}

const struct output_format output_flamegraph = {
	.name = "flamegraph",
	.summary = "a self-contained flame graph page of --metric",
	.write = flamegraph_write,
	.takes_metric = true,
};
