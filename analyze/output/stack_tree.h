/*
 * analyze/output/stack_tree.h - call stacks merged into a tree (a trie from
 * the root frame down), for the formats that draw or list merged stacks
 * (folded, flamegraph, the report page, diff's flamegraph).  A node is one
 * frame under one path of callers; what a node stands for is the caller's
 * key (a frame id, a name id, ...).  Each node holds a fixed number of
 * values (a metric, its allocations; or every metric of A and of B), and
 * the values of stacks that end at the same node are summed there.
 */
#ifndef MPROF_ANALYZE_OUTPUT_STACK_TREE_H
#define MPROF_ANALYZE_OUTPUT_STACK_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/profile/sites.h"

#define STACK_TREE_ROOT 0u        /* the node above every stack's first frame */
#define STACK_TREE_NONE UINT32_MAX
#define STACK_TREE_MAX_VALUES 16  /* values per node */

struct stack_tree_node {
	uint32_t key;             /* the caller's key of the frame (root: NONE) */
	uint32_t parent;          /* NONE for the root */
};

struct stack_tree {
	struct stack_tree_node *nodes; /* [0] is the root; owned */
	uint64_t *values;         /* per node, value_count of them, summed over
	                           * the stacks that end there; owned */
	size_t value_count;
	size_t count, cap;
	uint32_t last;            /* the node the latest stack_tree_add ended at */
	uint32_t *hash;           /* (parent, key) -> node index + 1; owned */
	size_t hash_mask;
	uint32_t *order;          /* stack_tree_sort: depth-first order; owned */
	uint32_t *depth;          /* stack_tree_sort: per node, 0 for the root */
	bool saturated;           /* a sum of values stopped at UINT64_MAX */
};

/* An empty tree (the root only) whose nodes hold value_count values (1 to
 * STACK_TREE_MAX_VALUES).  Returns 0, -EINVAL or -ENOMEM. */
int stack_tree_init(struct stack_tree *t, size_t value_count);

void stack_tree_free(struct stack_tree *t);

/* The values of node (t->value_count of them). */
static inline uint64_t *stack_tree_values(const struct stack_tree *t, uint32_t node)
{
	return &t->values[(size_t)node * t->value_count];
}

/*
 * Adds a stack of n frames, keys[0] the outermost (root side), with values
 * (t->value_count of them) added to its last node (the root when n is 0).
 * Returns 0, or -ENOMEM (the tree is left as it was before the missing
 * node) or -EOVERFLOW (more than 2^32 - 2 nodes).
 */
int stack_tree_add(struct stack_tree *t, const uint32_t *keys, size_t n, const uint64_t *values);

/*
 * Adds site s of table tab as a stack (stack_tree_add): its frames root
 * first, each keyed by key_of[frame id] (NULL: the frame id itself); a site
 * without frames (unknown stack, inherited at fork) is one frame keyed by
 * key_of[tab->frame_count + 1] when inherited, else key_of[tab->frame_count]
 * (without key_of: those numbers).  Returns what stack_tree_add returns.
 */
int stack_tree_add_site(struct stack_tree *t, const struct site_table *tab, const struct site *s,
			const uint32_t *key_of, const uint64_t *values);

/* Fills values (value_count of them) for site s; false leaves s out. */
typedef bool (*stack_tree_site_values)(const struct site *s, uint64_t *values, void *ctx);

/*
 * The one builder of the report's trees: t made (stack_tree_init with
 * value_count), every site of tab that values_of keeps added
 * (stack_tree_add_site with key_of), and sorted (stack_tree_sort).
 * Returns 0 or a negative errno; t is to be freed either way.
 */
int stack_tree_of_sites(struct stack_tree *t, const struct site_table *tab, const uint32_t *key_of,
			size_t value_count, stack_tree_site_values values_of, void *ctx);

/*
 * Puts the nodes in depth-first order into t->order (t->count entries, the
 * root first), a node's children by ascending key, and each node's depth
 * into t->depth.  Call once, after the last add.  Returns 0 or -ENOMEM.
 */
int stack_tree_sort(struct stack_tree *t);

#endif
