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

/* The frames of both traces as one set of keys (f->keys); of_a / of_b map
 * a table's frame ids (and its two stackless names past them) to keys. */
struct diff_keys {
	uint32_t *of_a, *of_b;
};

static void diff_keys_free(struct diff_keys *k)
{
	free(k->of_a);
	free(k->of_b);
}

/* Gives every frame of t its key in k (a new one unless an equal frame
 * has one), through hash (mask + 1 slots, key + 1 in each). */
static void diff_keys_add(struct diff_flame *k, const struct site_table *t, uint32_t *of,
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
			k->keys[k->key_count++] = (struct flame_key){t, (uint32_t)i};
			hash[h] = (uint32_t)k->key_count;
		}
		of[i] = hash[h] - 1;
	}
	/* the stackless sites' two names: keys 0 and 1 */
	of[t->frame_count] = 0;
	of[t->frame_count + 1] = 1;
}

static int diff_keys_make(struct diff_flame *f, struct diff_keys *k, const struct diff *d)
{
	const struct site_table *ta = &d->pa->sites, *tb = &d->pb->sites;
	size_t n = ta->frame_count + tb->frame_count + 2, cap = 16;
	uint32_t *hash;

	while (cap < 2 * n)
		cap *= 2;
	memset(k, 0, sizeof(*k));
	f->keys = malloc(n * sizeof(*f->keys));
	k->of_a = malloc((ta->frame_count + 2) * sizeof(*k->of_a));
	k->of_b = malloc((tb->frame_count + 2) * sizeof(*k->of_b));
	hash = calloc(cap, sizeof(*hash));
	if (!f->keys || !k->of_a || !k->of_b || !hash) {
		free(hash);
		diff_keys_free(k);
		return -ENOMEM;
	}
	f->keys[0] = (struct flame_key){ta, (uint32_t)ta->frame_count};
	f->keys[1] = (struct flame_key){ta, (uint32_t)ta->frame_count + 1};
	f->key_count = 2;
	diff_keys_add(f, ta, k->of_a, hash, cap - 1, d->match);
	diff_keys_add(f, tb, k->of_b, hash, cap - 1, d->match);
	free(hash);
	return 0;
}

/* The entries' stacks with their values of f's fields in B then in A;
 * entry_node the node each ended at. */
static int diff_tree_make(struct diff_flame *f, const struct diff *d, const struct diff_keys *k)
{
	int rc = stack_tree_init(&f->tree, 2 * f->n);

	for (size_t i = 0; rc == 0 && i < d->count; i++) {
		const struct diff_entry *e = &d->entries[i];
		const struct site_table *t;
		const struct site *s = diff_entry_site(d, e, &t);
		uint64_t values[STACK_TREE_MAX_VALUES], any = 0;

		for (size_t c = 0; c < f->n; c++) {
			values[c] = e->b.v[f->fields[c]];
			values[f->n + c] = e->a.v[f->fields[c]];
			any |= values[c] | values[f->n + c];
		}
		f->entry_node[i] = UINT32_MAX;
		if (!any)
			continue;
		rc = stack_tree_add_site(&f->tree, t, s, t == &d->pa->sites ? k->of_a : k->of_b,
					 values);
		f->entry_node[i] = f->tree.last;
	}
	return rc ? rc : stack_tree_sort(&f->tree);
}

int diff_flame_build(struct diff_flame *f, const struct diff *d, const enum diff_field *fields,
		     size_t n)
{
	struct diff_keys k;
	uint32_t *pos;
	int rc;

	memset(f, 0, sizeof(*f));
	if (n < 1 || 2 * n > STACK_TREE_MAX_VALUES)
		return -EINVAL;
	memcpy(f->fields, fields, n * sizeof(*fields));
	f->n = n;
	if (!(f->entry_node = malloc((d->count + 1) * sizeof(*f->entry_node))))
		return -ENOMEM;
	if ((rc = diff_keys_make(f, &k, d)) < 0)
		return rc;
	rc = diff_tree_make(f, d, &k);
	diff_keys_free(&k);
	if (rc < 0)
		return rc;
	/* tree nodes to their places in "nodes" (depth-first order) */
	if (!(pos = malloc(f->tree.count * sizeof(*pos))))
		return -ENOMEM;
	for (size_t i = 1; i < f->tree.count; i++)
		pos[f->tree.order[i]] = (uint32_t)(i - 1);
	for (size_t i = 0; i < d->count; i++)
		if (f->entry_node[i] != UINT32_MAX)
			f->entry_node[i] = pos[f->entry_node[i]];
	free(pos);
	return 0;
}

void diff_flame_free(struct diff_flame *f)
{
	free(f->keys);
	free(f->entry_node);
	stack_tree_free(&f->tree);
	memset(f, 0, sizeof(*f));
}

int diff_flame_write(FILE *out, const struct diff_flame *f, const struct diff *d)
{
	const char *columns[STACK_TREE_MAX_VALUES];
	char names[STACK_TREE_MAX_VALUES / 2][32];
	int rc;

	for (size_t c = 0; c < f->n; c++) {
		columns[c] = diff_field_name(f->fields[c]);
		snprintf(names[c], sizeof(names[c]), "a:%s", columns[c]);
		columns[f->n + c] = names[c];
	}
	fputs("{\"schema\":\"mprof-flamegraph\",\"schema_version\":3,", out);
	flame_data_run(out, d->pb);
	fputs(",\"base\":{\"trace\":", out);
	output_json_string(out, d->pa->info.path);
	fputs(",\"kind\":", out);
	output_json_string(out, output_report_kind(d->pa));
	fputs("},", out);
	flame_data_metric(out, diff_field_metric[f->fields[0]],
			  diff_field_qualifier(d, f->fields[0]));
	fputc(',', out);
	rc = flame_data_tree(out, &f->tree, f->keys, f->key_count, columns);
	fputc('}', out);
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
	struct diff_flame f;
	int rc = diff_flame_build(&f, c->d, c->fields, c->n);

	if (rc == 0)
		rc = diff_flame_write(js, &f, c->d);
	diff_flame_free(&f);
	return rc;
}

int diff_write_flamegraph(FILE *out, struct diff *d, const struct diff_print *o)
{
	struct flame_ctx c = {d, {o->metric, DF_ALLOCATIONS}, o->metric == DF_ALLOCATIONS ? 1 : 2};
	char prefix[128], composed[4096];
	const char *program = flame_data_program(d->pb, composed, sizeof(composed));
	const char *q = diff_field_qualifier(d, o->metric);

	/* "peak bytes change: ", "peak bytes (rough) change: " */
	snprintf(prefix, sizeof(prefix), "%s%s%s%s change: ", diff_field_label(o->metric),
		 q ? " (" : "", q ? q : "", q ? ")" : "");
	return flame_page_write(out, prefix, program ? program : d->pb->info.path,
				" - mprof diff flame graph", flame_data, &c);
}
