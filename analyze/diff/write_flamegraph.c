/*
 * analyze/diff/write_flamegraph.c - `mprof diff --format flamegraph`: a
 * differential flame graph in one self-contained page, the report's page
 * (output/assets/flamegraph.html) given the values of both traces: widths
 * from B (or, switched, from A, which shows what vanished), colours by the
 * change from A to B (red grew, blue shrank, as flamegraph.pl's
 * differential graphs), a tooltip with A, B and the change.
 *
 * The matched entries (match.c) are the stacks, each frame named as every
 * diff output names it (diff_entry_frames: only what the frames merged
 * into it share, so no line of one of them names the others); frames of
 * different entries that show the same are one key.  Owns nothing past a
 * call.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/diff/diff.h"
#include "analyze/output/flame_data.h"
#include "analyze/output/output.h"

/* The keys of the merged frames that show the same (f->keys, f->shown),
 * through an open-addressing hash of key + 1 per slot. */
struct diff_keys {
	uint32_t *hash;
	size_t mask;
};

/* Makes room for one more key in f, and keeps k's load under a half.
 * Returns 0 or -ENOMEM. */
static int diff_keys_grow(struct diff_flame *f, struct diff_keys *k)
{
	if (f->key_count == f->key_cap) {
		size_t cap = f->key_cap ? 2 * f->key_cap : 256;
		struct flame_key *keys = realloc(f->keys, cap * sizeof(*keys));
		struct diff_frame *shown;

		if (!keys)
			return -ENOMEM;
		f->keys = keys;
		if (!(shown = realloc(f->shown, cap * sizeof(*shown))))
			return -ENOMEM;
		f->shown = shown;
		f->key_cap = cap;
	}
	if (2 * (f->key_count + 1) > k->mask + 1) {
		size_t mask = k->mask ? 2 * k->mask + 1 : 1023;
		uint32_t *hash = calloc(mask + 1, sizeof(*hash));

		if (!hash)
			return -ENOMEM;
		for (size_t i = 2; i < f->key_count; i++) {
			size_t h = diff_frame_shown_hash(&f->shown[i]) & mask;

			while (hash[h])
				h = (h + 1) & mask;
			hash[h] = (uint32_t)i + 1;
		}
		free(k->hash);
		k->hash = hash;
		k->mask = mask;
	}
	return 0;
}

/* The key of merged frame m of table t (a new one unless a frame that shows
 * the same has one), or -ENOMEM. */
static int64_t diff_key_of(struct diff_flame *f, struct diff_keys *k, const struct site_table *t,
			   const struct diff_frame *m)
{
	size_t h;

	if (diff_keys_grow(f, k) < 0)
		return -ENOMEM;
	for (h = diff_frame_shown_hash(m) & k->mask; k->hash[h]; h = (h + 1) & k->mask)
		if (diff_frame_shown_equal(&f->shown[k->hash[h] - 1], m))
			return k->hash[h] - 1;
	f->shown[f->key_count] = *m;
	f->keys[f->key_count] = (struct flame_key){t, 0, NULL, m->lines_differ};
	k->hash[h] = (uint32_t)++f->key_count;
	return f->key_count - 1;
}

/* Adds entry e of d to f's tree with values: its merged frames (in
 * frames, room for SITES_MAX_FRAMES) as keys (in ids, as much room). */
static int diff_tree_add(struct diff_flame *f, struct diff_keys *k, const struct diff *d,
			 const struct diff_entry *e, const uint64_t *values,
			 struct diff_frame *frames, uint32_t *ids)
{
	const struct site_table *t;
	const struct site *s = diff_entry_site(d, e, &t);
	uint32_t n = s->frame_count;

	if (!n) {
		/* the stackless sites' two names: keys 0 and 1 */
		ids[0] = s->inherited ? 1 : 0;
		return stack_tree_add(&f->tree, ids, 1, values);
	}
	diff_entry_frames(d, e, frames, n);
	for (uint32_t i = 0; i < n; i++) {
		int64_t key = diff_key_of(f, k, t, &frames[i]);

		if (key < 0)
			return (int)key;
		ids[n - 1 - i] = (uint32_t)key;
	}
	return stack_tree_add(&f->tree, ids, n, values);
}

/* The entries' stacks with their values of f's fields in B then in A;
 * entry_node the node each ended at. */
static int diff_tree_make(struct diff_flame *f, const struct diff *d)
{
	struct diff_keys k = {NULL, 0};
	struct diff_frame *frames = malloc(SITES_MAX_FRAMES * sizeof(*frames));
	uint32_t *ids = malloc(SITES_MAX_FRAMES * sizeof(*ids));
	int rc = frames && ids ? diff_keys_grow(f, &k) : -ENOMEM;

	if (rc == 0) {
		f->keys[0] = (struct flame_key){&d->pa->sites, (uint32_t)d->pa->sites.frame_count,
						NULL, false};
		f->keys[1] = (struct flame_key){&d->pa->sites,
						(uint32_t)d->pa->sites.frame_count + 1, NULL, false};
		f->key_count = 2;
		rc = stack_tree_init(&f->tree, 2 * f->n);
	}
	for (size_t i = 0; rc == 0 && i < d->count; i++) {
		const struct diff_entry *e = &d->entries[i];
		uint64_t values[STACK_TREE_MAX_VALUES], any = 0;

		for (size_t c = 0; c < f->n; c++) {
			values[c] = e->b.v[f->fields[c]];
			values[f->n + c] = e->a.v[f->fields[c]];
			any |= values[c] | values[f->n + c];
		}
		f->entry_node[i] = UINT32_MAX;
		if (!any)
			continue;
		rc = diff_tree_add(f, &k, d, e, values, frames, ids);
		f->entry_node[i] = f->tree.last;
	}
	/* the keys' frames: f->shown is where it stays now */
	for (size_t i = 2; rc == 0 && i < f->key_count; i++)
		f->keys[i].shown = &f->shown[i].f;
	free(k.hash);
	free(frames);
	free(ids);
	return rc ? rc : stack_tree_sort(&f->tree);
}

int diff_flame_build(struct diff_flame *f, const struct diff *d, const enum diff_field *fields,
		     size_t n)
{
	uint32_t *pos;
	int rc;

	memset(f, 0, sizeof(*f));
	if (n < 1 || 2 * n > STACK_TREE_MAX_VALUES)
		return -EINVAL;
	memcpy(f->fields, fields, n * sizeof(*fields));
	f->n = n;
	if (!(f->entry_node = malloc((d->count + 1) * sizeof(*f->entry_node))))
		return -ENOMEM;
	rc = diff_tree_make(f, d);
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
	free(f->shown);
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
	fputc('{', out);
	flame_data_schema(out);
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
