/*
 * analyze/output/folded.c - folded stacks (`mprof report --format folded`):
 * one line per distinct call stack, "root;...;leaf VALUE", VALUE the
 * chosen metric (--metric, default peak) summed over the sites whose frames
 * have the same names; stacks whose value is 0 are left out.  The format of
 * Brendan Gregg's stackcollapse scripts, read by flamegraph.pl, inferno and
 * speedscope.
 *
 * Frame names are made safe for all three readers (folded.h).  Lines come
 * in depth-first order of the merged stacks, each level by name (bytewise),
 * so the output of a trace is always the same.  Owns nothing past write.
 */
#define _GNU_SOURCE /* qsort_r, fputs_unlocked, putc_unlocked */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/folded.h"
#include "analyze/output/frames.h"
#include "analyze/output/output.h"
#include "analyze/output/stack_tree.h"
#include "trace/argv_quote.h"

static int is_digit_or_dot(char c)
{
	return (c >= '0' && c <= '9') || c == '.';
}

char *output_folded_name_clean(char *name)
{
	size_t n = strlen(name), end;

	for (size_t i = 0, len; i < n; i += len) {
		unsigned char c = (unsigned char)name[i];

		len = argv_quote_utf8_len((const unsigned char *)name + i);
		if (c == ';')
			name[i] = ':';
		else if (c < 0x20 || c == 0x7f)
			name[i] = '_';
		else if (argv_quote_is_c1((const unsigned char *)name + i))
			name[i] = name[i + 1] = '_'; /* a C1 control */
		else if (len == 0)
			name[i] = '?';
		if (len == 0)
			len = 1;
	}
	if (n == 0)
		return name;
	if (name[0] == ' ' || name[0] == '#')
		name[0] = '_';
	for (end = n; end > 0 && is_digit_or_dot(name[end - 1]); end--)
		;
	if (end > 0 && name[end - 1] == ' ')
		name[end - 1] = '_';
	return name;
}

/* Frame names, each distinct cleaned name once: the ids a stack tree is
 * keyed by.  Frame i of the site table has name rank[i]; the two
 * stackless names come after the frames. */
struct folded_names {
	char **names;          /* per frame (+2), owned */
	uint32_t *rank;        /* per frame (+2): the index of its name in bytewise order */
	size_t count;          /* frames + 2 */
};

static int by_name(const void *a, const void *b, void *ctx)
{
	char *const *names = ctx;

	return strcmp(names[*(const uint32_t *)a], names[*(const uint32_t *)b]);
}

static void folded_names_free(struct folded_names *fn)
{
	if (fn->names)
		for (size_t i = 0; i < fn->count; i++)
			free(fn->names[i]);
	free(fn->names);
	free(fn->rank);
}

/* A frame's name, cleaned (malloc'd), or NULL. */
static char *folded_frame_name(const struct site_frame *f)
{
	char buf[512];
	const char *name = f->function && f->function[0] ? f->function
							 : output_frame_name(f, buf, sizeof(buf));
	char *copy;

	if (!name[0])
		name = "[unknown]";
	copy = strdup(name);
	return copy ? output_folded_name_clean(copy) : NULL;
}

static int folded_names_make(struct folded_names *fn, const struct site_table *t)
{
	uint32_t *order;
	size_t n = t->frame_count + 2;

	memset(fn, 0, sizeof(*fn));
	fn->names = calloc(n, sizeof(*fn->names));
	fn->rank = malloc(n * sizeof(*fn->rank));
	order = malloc(n * sizeof(*order));
	if (!fn->names || !fn->rank || !order)
		goto nomem;
	fn->count = n;
	for (size_t i = 0; i < t->frame_count; i++)
		if (!(fn->names[i] = folded_frame_name(&t->frames[i])))
			goto nomem;
	fn->names[n - 2] = strdup("[no stack]");
	fn->names[n - 1] = strdup("[inherited at fork]");
	if (!fn->names[n - 2] || !fn->names[n - 1])
		goto nomem;
	for (size_t i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), by_name, fn->names);
	for (size_t i = 0, r = 0; i < n; i++) {
		if (i && strcmp(fn->names[order[i]], fn->names[order[i - 1]]) != 0)
			r++;
		fn->rank[order[i]] = (uint32_t)r;
	}
	free(order);
	return 0;
nomem:
	free(order);
	folded_names_free(fn);
	return -ENOMEM;
}

static bool folded_site_value(const struct site *s, uint64_t *values, void *ctx)
{
	values[0] = metric_site_value(s, *(const enum metric *)ctx);
	return values[0] != 0;
}

/* Prints the stacks of tree with a value, in depth-first order. */
static int folded_print(FILE *out, const struct stack_tree *tree, const struct folded_names *fn)
{
	const char **by_rank = malloc(fn->count * sizeof(*by_rank));
	const char **path = malloc((SITES_MAX_FRAMES + 1) * sizeof(*path));

	if (!by_rank || !path) {
		free(by_rank);
		free(path);
		return -ENOMEM;
	}
	for (size_t i = 0; i < fn->count; i++)
		by_rank[fn->rank[i]] = fn->names[i];
	for (size_t i = 1; i < tree->count; i++) {
		uint32_t node = tree->order[i], depth = tree->depth[node];
		const struct stack_tree_node *nd = &tree->nodes[node];
		uint64_t value = stack_tree_values(tree, node)[0];

		path[depth] = by_rank[nd->key];
		if (!value)
			continue;
		for (uint32_t d = 1; d <= depth; d++) {
			if (d > 1)
				putc_unlocked(';', out);
			fputs_unlocked(path[d], out);
		}
		fprintf(out, " %" PRIu64 "\n", value);
	}
	free(by_rank);
	free(path);
	return 0;
}

static int folded_write(FILE *out, const struct profile *p, const struct output_options *o)
{
	struct folded_names fn;
	struct stack_tree tree;
	int rc = folded_names_make(&fn, &p->sites);

	if (rc < 0)
		return rc;
	memset(&tree, 0, sizeof(tree));
	/* the frames of every site with a value, merged by name */
	rc = stack_tree_of_sites(&tree, &p->sites, fn.rank, 1, folded_site_value,
				 (void *)&o->metric);
	if (rc == 0)
		rc = folded_print(out, &tree, &fn);
	stack_tree_free(&tree);
	folded_names_free(&fn);
	return rc < 0 ? rc : 0;
}

const struct output_format output_folded = {
	.name = "folded",
	.summary = "folded stacks of --metric (flamegraph.pl etc.)",
	.write = folded_write,
	.bare = true,
	.takes_metric = true,
};
