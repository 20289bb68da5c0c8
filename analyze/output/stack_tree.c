/*
 * analyze/output/stack_tree.c - call stacks merged into a tree (see
 * stack_tree.h), and sites added to one as stacks.  Children are found
 * through one open-addressing table keyed by (parent, key); the
 * depth-first order is made once at the end.
 */
#define _GNU_SOURCE /* qsort_r */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/output/stack_tree.h"
#include "analyze/util/saturate.h"

#define STACK_TREE_FIRST_NODES 64
#define STACK_TREE_MAX_NODES ((size_t)UINT32_MAX - 1)

static size_t edge_hash(uint32_t parent, uint32_t key)
{
	uint64_t h = ((uint64_t)parent << 32 | key) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ h >> 29);
}

int stack_tree_init(struct stack_tree *t, size_t value_count)
{
	memset(t, 0, sizeof(*t));
	if (value_count < 1 || value_count > STACK_TREE_MAX_VALUES)
		return -EINVAL;
	t->value_count = value_count;
	t->nodes = malloc(STACK_TREE_FIRST_NODES * sizeof(*t->nodes));
	t->values = calloc(STACK_TREE_FIRST_NODES * value_count, sizeof(*t->values));
	t->hash = calloc(2 * STACK_TREE_FIRST_NODES, sizeof(*t->hash));
	if (!t->nodes || !t->values || !t->hash) {
		stack_tree_free(t);
		return -ENOMEM;
	}
	t->cap = STACK_TREE_FIRST_NODES;
	t->hash_mask = 2 * STACK_TREE_FIRST_NODES - 1;
	t->nodes[0] = (struct stack_tree_node){STACK_TREE_NONE, STACK_TREE_NONE};
	t->count = 1;
	return 0;
}

void stack_tree_free(struct stack_tree *t)
{
	free(t->nodes);
	free(t->values);
	free(t->hash);
	free(t->order);
	free(t->depth);
	memset(t, 0, sizeof(*t));
}

/* Doubles the node array and the table (kept at most half full). */
static int stack_tree_grow(struct stack_tree *t)
{
	size_t cap = t->cap * 2, mask = cap * 2 - 1;
	struct stack_tree_node *nodes;
	uint64_t *values;
	uint32_t *hash;

	if (t->cap >= STACK_TREE_MAX_NODES)
		return -EOVERFLOW;
	if (cap > STACK_TREE_MAX_NODES)
		cap = STACK_TREE_MAX_NODES;
	nodes = realloc(t->nodes, cap * sizeof(*nodes));
	if (!nodes)
		return -ENOMEM;
	t->nodes = nodes;
	values = realloc(t->values, cap * t->value_count * sizeof(*values));
	if (!values)
		return -ENOMEM;
	t->values = values;
	hash = calloc(mask + 1, sizeof(*hash));
	if (!hash)
		return -ENOMEM;
	for (size_t i = 1; i < t->count; i++) {
		size_t h = edge_hash(t->nodes[i].parent, t->nodes[i].key) & mask;

		while (hash[h])
			h = (h + 1) & mask;
		hash[h] = (uint32_t)(i + 1);
	}
	free(t->hash);
	t->hash = hash;
	t->hash_mask = mask;
	t->cap = cap;
	return 0;
}

/* The child of parent with key, made when missing; STACK_TREE_NONE with
 * *err set when it cannot be made. */
static uint32_t stack_tree_child(struct stack_tree *t, uint32_t parent, uint32_t key, int *err)
{
	size_t h = edge_hash(parent, key) & t->hash_mask;
	uint32_t id;

	for (; t->hash[h]; h = (h + 1) & t->hash_mask) {
		const struct stack_tree_node *n = &t->nodes[t->hash[h] - 1];

		if (n->parent == parent && n->key == key)
			return t->hash[h] - 1;
	}
	if (t->count == t->cap) {
		if ((*err = stack_tree_grow(t)) < 0)
			return STACK_TREE_NONE;
		h = edge_hash(parent, key) & t->hash_mask;
		while (t->hash[h])
			h = (h + 1) & t->hash_mask;
	}
	id = (uint32_t)t->count++;
	t->nodes[id] = (struct stack_tree_node){key, parent};
	memset(stack_tree_values(t, id), 0, t->value_count * sizeof(*t->values));
	t->hash[h] = id + 1;
	return id;
}

int stack_tree_add(struct stack_tree *t, const uint32_t *keys, size_t n, const uint64_t *values)
{
	uint32_t node = STACK_TREE_ROOT;
	uint64_t *sum;
	int err = 0;

	for (size_t i = 0; i < n; i++) {
		node = stack_tree_child(t, node, keys[i], &err);
		if (node == STACK_TREE_NONE)
			return err;
	}
	t->last = node;
	sum = stack_tree_values(t, node);
	for (size_t k = 0; k < t->value_count; k++)
		sum[k] = sat_add(sum[k], values[k], &t->saturated);
	return 0;
}

int stack_tree_add_site(struct stack_tree *t, const struct site_table *tab, const struct site *s,
			const uint32_t *key_of, const uint64_t *values)
{
	uint32_t ids[SITES_MAX_FRAMES], keys[SITES_MAX_FRAMES];
	size_t n = s->frame_count < SITES_MAX_FRAMES ? s->frame_count : SITES_MAX_FRAMES;

	if (s->unknown_stack || s->inherited || n == 0) {
		keys[0] = (uint32_t)tab->frame_count + (s->inherited ? 1 : 0);
		if (key_of)
			keys[0] = key_of[keys[0]];
		return stack_tree_add(t, keys, 1, values);
	}
	site_frame_ids(tab, s, ids);
	for (size_t k = 0; k < n; k++)
		keys[k] = key_of ? key_of[ids[n - 1 - k]] : ids[n - 1 - k];
	return stack_tree_add(t, keys, n, values);
}

int stack_tree_of_sites(struct stack_tree *t, const struct site_table *tab, const uint32_t *key_of,
			size_t value_count, stack_tree_site_values values_of, void *ctx)
{
	uint64_t values[STACK_TREE_MAX_VALUES];
	int rc = stack_tree_init(t, value_count);

	for (size_t i = 0; rc == 0 && i < tab->count; i++)
		if (values_of(&tab->sites[i], values, ctx))
			rc = stack_tree_add_site(t, tab, &tab->sites[i], key_of, values);
	return rc ? rc : stack_tree_sort(t);
}

static int by_parent_then_key(const void *a, const void *b, void *ctx)
{
	const struct stack_tree_node *nodes = ctx;
	const struct stack_tree_node *x = &nodes[*(const uint32_t *)a];
	const struct stack_tree_node *y = &nodes[*(const uint32_t *)b];

	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

int stack_tree_sort(struct stack_tree *t)
{
	size_t n = t->count, top = 0, done = 0;
	uint32_t *children = malloc(n * sizeof(*children));
	uint32_t *first = calloc(n + 1, sizeof(*first)); /* children of i: [first[i], first[i+1]) */
	uint32_t *todo = malloc(n * sizeof(*todo));

	t->order = malloc(n * sizeof(*t->order));
	t->depth = malloc(n * sizeof(*t->depth));
	if (!children || !first || !todo || !t->order || !t->depth) {
		free(children);
		free(first);
		free(todo);
		return -ENOMEM;
	}
	for (size_t i = 1; i < n; i++)
		children[i - 1] = (uint32_t)i;
	qsort_r(children, n - 1, sizeof(*children), by_parent_then_key, t->nodes);
	for (size_t i = 1; i < n; i++)
		first[t->nodes[i].parent + 1]++;
	for (size_t i = 0; i < n; i++)
		first[i + 1] += first[i];
	/* preorder: a node, then its children's subtrees by key */
	todo[top++] = STACK_TREE_ROOT;
	t->depth[STACK_TREE_ROOT] = 0;
	while (top) {
		uint32_t node = todo[--top];

		t->order[done++] = node;
		for (uint32_t c = first[node + 1]; c > first[node]; c--) {
			uint32_t child = children[c - 1];

			t->depth[child] = t->depth[node] + 1;
			todo[top++] = child;
		}
	}
	free(children);
	free(first);
	free(todo);
	return 0;
}
