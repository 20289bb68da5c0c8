/*
 * analyze/diff/write_flamegraph.c - `mprof diff --format flamegraph`: a
 * differential flame graph in one self-contained page, the report's page
 * (output/assets/flamegraph.html) given the values of both traces: widths
 * from B (or, switched, from A, which shows what vanished), colours by the
 * change from A to B (red grew, blue shrank, as flamegraph.pl's
 * differential graphs), a tooltip with A, B and the change.
 *
 * The matched entries (match.c) are the stacks; frames of A and B merge
 * when diff_frame_equal says they are one (so --match decides).  Owns
 * nothing past a call.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/flame_data.h"
#include "analyze/output/output.h"

/* The frames of both traces as one set of keys: keys[k] names key k;
 * of_a / of_b map a table's frame ids (and its two stackless names past
 * them) to keys. */
struct diff_keys {
	struct flame_key *keys;
	size_t count;
	uint32_t *of_a, *of_b;
};

static void diff_keys_free(struct diff_keys *k)
{
	free(k->keys);
	free(k->of_a);
	free(k->of_b);
}

/* Gives every frame of t its key in k (a new one unless an equal frame
 * has one), through hash (mask + 1 slots, key + 1 in each). */
static void diff_keys_add(struct diff_keys *k, const struct site_table *t, uint32_t *of,
			  uint32_t *hash, size_t mask, enum diff_match m)
{
	for (size_t i = 0; i < t->frame_count; i++) {
		const struct site_frame *f = &t->frames[i];
		size_t h = diff_frame_hash(f, m) & mask;

		for (; hash[h]; h = (h + 1) & mask) {
			const struct flame_key *o = &k->keys[hash[h] - 1];

			if (o->frame < o->table->frame_count &&
			    diff_frame_equal(&o->table->frames[o->frame], f, m))
				break;
		}
		if (!hash[h]) {
			k->keys[k->count++] = (struct flame_key){t, (uint32_t)i};
			hash[h] = (uint32_t)k->count;
		}
		of[i] = hash[h] - 1;
	}
	/* the stackless sites' two names: keys 0 and 1 */
	of[t->frame_count] = 0;
	of[t->frame_count + 1] = 1;
}

static int diff_keys_make(struct diff_keys *k, const struct diff *d)
{
	const struct site_table *ta = &d->pa->sites, *tb = &d->pb->sites;
	size_t n = ta->frame_count + tb->frame_count + 2, cap = 16;
	uint32_t *hash;

	while (cap < 2 * n)
		cap *= 2;
	memset(k, 0, sizeof(*k));
	k->keys = malloc(n * sizeof(*k->keys));
	k->of_a = malloc((ta->frame_count + 2) * sizeof(*k->of_a));
	k->of_b = malloc((tb->frame_count + 2) * sizeof(*k->of_b));
	hash = calloc(cap, sizeof(*hash));
	if (!k->keys || !k->of_a || !k->of_b || !hash) {
		free(hash);
		diff_keys_free(k);
		return -ENOMEM;
	}
	k->keys[0] = (struct flame_key){ta, (uint32_t)ta->frame_count};
	k->keys[1] = (struct flame_key){ta, (uint32_t)ta->frame_count + 1};
	k->count = 2;
	diff_keys_add(k, ta, k->of_a, hash, cap - 1, d->match);
	diff_keys_add(k, tb, k->of_b, hash, cap - 1, d->match);
	free(hash);
	return 0;
}

/* The entries' stacks with their values of fields in B then in A. */
static int diff_tree_make(struct stack_tree *tree, const struct diff *d, const struct diff_keys *k,
			  const enum diff_field *fields, size_t n)
{
	int rc = stack_tree_init(tree, 2 * n);

	for (size_t i = 0; rc == 0 && i < d->count; i++) {
		const struct diff_entry *e = &d->entries[i];
		const struct site_table *t;
		const struct site *s = diff_entry_site(d, e, &t);
		uint64_t values[STACK_TREE_MAX_VALUES], any = 0;

		for (size_t f = 0; f < n; f++) {
			values[f] = e->b.v[fields[f]];
			values[n + f] = e->a.v[fields[f]];
			any |= values[f] | values[n + f];
		}
		if (any)
			rc = stack_tree_add_site(tree, t, s, t == &d->pa->sites ? k->of_a : k->of_b,
						 values);
	}
	return rc ? rc : stack_tree_sort(tree);
}

int diff_flame_data(FILE *out, const struct diff *d, const enum diff_field *fields, size_t n)
{
	const char *columns[STACK_TREE_MAX_VALUES];
	char names[STACK_TREE_MAX_VALUES / 2][32];
	struct diff_keys k;
	struct stack_tree tree;
	int rc;

	if (n < 1 || 2 * n > STACK_TREE_MAX_VALUES)
		return -EINVAL;
	for (size_t f = 0; f < n; f++) {
		columns[f] = diff_field_name(fields[f]);
		snprintf(names[f], sizeof(names[f]), "a:%s", columns[f]);
		columns[n + f] = names[f];
	}
	if ((rc = diff_keys_make(&k, d)) < 0)
		return rc;
	memset(&tree, 0, sizeof(tree));
	rc = diff_tree_make(&tree, d, &k, fields, n);
	if (rc == 0) {
		fputs("{\"schema\":\"mprof-flamegraph\",\"schema_version\":2,", out);
		flame_data_run(out, d->pb);
		fputs(",\"base\":{\"trace\":", out);
		output_json_string(out, d->pa->info.path);
		fputs(",\"kind\":", out);
		output_json_string(out, output_report_kind(d->pa));
		fputs("},", out);
		flame_data_metric(out, diff_field_metric[fields[0]]);
		fputc(',', out);
		rc = flame_data_tree(out, &tree, k.keys, k.count, columns);
		fputc('}', out);
	}
	stack_tree_free(&tree);
	diff_keys_free(&k);
	return rc;
}

struct flame_ctx {
	const struct diff *d;
	enum diff_field fields[2];
	size_t n;
};

static int flame_data(FILE *js, void *ctx)
{
	const struct flame_ctx *c = ctx;

	return diff_flame_data(js, c->d, c->fields, c->n);
}

int diff_write_flamegraph(FILE *out, const struct diff *d, const struct diff_print *o)
{
	struct flame_ctx c = {d, {o->metric, DF_ALLOCATIONS}, o->metric == DF_ALLOCATIONS ? 1 : 2};
	const char *program = flame_data_program(d->pb);
	char prefix[128];

	snprintf(prefix, sizeof(prefix), "%s change: ", diff_field_label(o->metric));
	return flame_page_write(out, prefix, program ? program : d->pb->info.path,
				" - mprof diff flame graph", flame_data, &c);
}
